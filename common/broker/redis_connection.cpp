#include "common/broker/redis_connection.h"

#include <hiredis.h>
#include <signal.h>
#include <sys/socket.h>

#include <cerrno>
#include <cmath>
#include <ctime>

namespace mrd::broker {
namespace {

timeval to_timeval(double seconds) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(seconds);
  tv.tv_usec = static_cast<suseconds_t>((seconds - std::floor(seconds)) * 1e6);
  return tv;
}

RedisReply convert(const redisReply* r) {
  RedisReply out;
  switch (r->type) {
    case REDIS_REPLY_STRING:
      out.type = RedisReply::Type::String;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_STATUS:
      out.type = RedisReply::Type::Status;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ERROR:
      out.type = RedisReply::Type::Error;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_INTEGER:
      out.type = RedisReply::Type::Integer;
      out.integer = r->integer;
      break;
    case REDIS_REPLY_ARRAY:
      out.type = RedisReply::Type::Array;
      out.elements.reserve(r->elements);
      for (size_t i = 0; i < r->elements; ++i) out.elements.push_back(convert(r->element[i]));
      break;
    default:
      out.type = RedisReply::Type::Nil;
  }
  return out;
}

/// hiredis writes with write(): to a broker that went away that raises SIGPIPE, which would end
/// a client program that does not ignore it. While one lives, SIGPIPE is blocked in this thread,
/// and one raised meanwhile is consumed, so the write fails with EPIPE instead.
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    blocked_ = pthread_sigmask(SIG_BLOCK, &pipe_, &old_) == 0;
  }
  ~SigpipeBlock() {
    if (!blocked_) return;
    sigset_t pending;
    sigpending(&pending);
    if (!was_pending_ && sigismember(&pending, SIGPIPE) == 1) {
      timespec zero{0, 0};
      while (sigtimedwait(&pipe_, nullptr, &zero) < 0 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;

 private:
  sigset_t pipe_{}, old_{};
  bool was_pending_ = false;
  bool blocked_ = false;
};

}  // namespace

const RedisReply& RedisReply::at(size_t i) const {
  static const RedisReply nil;
  return i < elements.size() ? elements[i] : nil;
}

RedisConnection::RedisConnection(const RedisEndpoint& e, double timeout) : where_(e.text()) {
  timeval tv = to_timeval(timeout);
  ctx_ = e.unix_path.empty() ? redisConnectWithTimeout(e.host.c_str(), e.port, tv)
                             : redisConnectUnixWithTimeout(e.unix_path.c_str(), tv);
  if (!ctx_) throw BrokerError("cannot connect to the broker " + where_ + ": out of memory");
  if (ctx_->err) fail("cannot connect");
  redisSetTimeout(ctx_, tv);
  fd_ = ctx_->fd;
  if (!e.password.empty()) {
    RedisArgs auth = e.user.empty() ? RedisArgs{"AUTH", e.password}
                                    : RedisArgs{"AUTH", e.user, e.password};
    RedisReply r = command(auth);
    if (r.is_error()) fail("login refused (" + r.str + ")");
  }
  if (e.db != 0) {
    RedisReply r = command({"SELECT", std::to_string(e.db)});
    if (r.is_error()) fail("cannot select database " + std::to_string(e.db) + " (" + r.str + ")");
  }
}

RedisConnection::~RedisConnection() {
  if (ctx_) redisFree(ctx_);
}

void RedisConnection::fail(const std::string& what) {
  std::string why = ctx_ && ctx_->err ? std::string(": ") + ctx_->errstr : "";
  throw BrokerError("broker " + where_ + ": " + what + why);
}

RedisReply RedisConnection::command(const RedisArgs& args) {
  return std::move(pipeline({args}).front());
}

std::vector<RedisReply> RedisConnection::pipeline(const std::vector<RedisArgs>& commands) {
  if (ctx_->err) fail("connection lost");
  SigpipeBlock no_sigpipe;
  for (const auto& args : commands) {
    std::vector<const char*> argv;
    std::vector<size_t> lens;
    for (const auto& a : args) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    if (redisAppendCommandArgv(ctx_, static_cast<int>(argv.size()), argv.data(), lens.data()) !=
        REDIS_OK)
      fail("cannot send a command");
  }
  std::vector<RedisReply> out;
  out.reserve(commands.size());
  for (size_t i = 0; i < commands.size(); ++i) {
    void* raw = nullptr;
    if (redisGetReply(ctx_, &raw) != REDIS_OK || !raw) fail("connection lost");
    auto* r = static_cast<redisReply*>(raw);
    out.push_back(convert(r));
    freeReplyObject(r);
  }
  return out;
}

void RedisConnection::shutdown() {
  int fd = fd_.load();
  if (fd >= 0) ::shutdown(fd, SHUT_RDWR);
}

std::string RedisConnection::run_id() {
  RedisReply r = command({"INFO", "server"});
  if (r.type != RedisReply::Type::String) fail("INFO server gave no text");
  auto pos = r.str.find("run_id:");
  if (pos == std::string::npos) return "";
  auto end = r.str.find_first_of("\r\n", pos);
  return r.str.substr(pos + 7, end == std::string::npos ? std::string::npos : end - pos - 7);
}

}  // namespace mrd::broker
