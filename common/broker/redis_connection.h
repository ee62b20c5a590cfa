// A blocking connection to the broker (hiredis): connect with AUTH and SELECT, run a command
// or a pipeline of commands given as argument vectors (binary-safe), get replies as plain
// values. Used from one thread at a time; shutdown() may be called from any thread to make a
// call blocked in a read (XREADGROUP BLOCK) return at once with BrokerError.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/broker/redis_url.h"

struct redisContext;

namespace mrd::broker {

/// The broker cannot be reached, the connection broke or it refused the login.
class BrokerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RedisReply {
  enum class Type { Nil, String, Integer, Array, Status, Error };
  Type type = Type::Nil;
  std::string str;  ///< String, Status, Error
  long long integer = 0;
  std::vector<RedisReply> elements;

  bool is_nil() const { return type == Type::Nil; }
  bool is_error() const { return type == Type::Error; }
  /// The i-th element of an array, or a Nil reply when there is none.
  const RedisReply& at(size_t i) const;
};

using RedisArgs = std::vector<std::string>;

class RedisConnection {
 public:
  /// Connects (TCP or Unix socket), logs in and selects the database. `timeout` seconds bound
  /// the connect and every read and write. Throws BrokerError.
  explicit RedisConnection(const RedisEndpoint& endpoint, double timeout = 10);
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  /// Runs one command. An error reply is returned (type Error), not thrown; a broken
  /// connection throws BrokerError and the connection is unusable from then on.
  RedisReply command(const RedisArgs& args);
  /// Sends every command, then reads every reply, in order.
  std::vector<RedisReply> pipeline(const std::vector<RedisArgs>& commands);
  /// Makes a blocked or later call fail with BrokerError; thread-safe.
  void shutdown();
  /// The server's run_id (INFO server): it changes when the broker restarts.
  std::string run_id();

 private:
  [[noreturn]] void fail(const std::string& what);
  redisContext* ctx_ = nullptr;
  std::atomic<int> fd_{-1};
  std::string where_;
};

}  // namespace mrd::broker
