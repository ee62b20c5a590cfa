// A measurerd that is also a node of a broker. Two threads talk to the broker, so that the
// event loop never waits on it: the reader takes jobs from the consumer group of the device
// key's stream — jobs of silent nodes first (XAUTOCLAIM), then new ones (XREADGROUP) — only
// for workers that neither its jobs nor local clients' inputs occupy; the writer sends each
// result to its requester's stream and acknowledges the job in one transaction, beats the
// node's heartbeat and renews the idle time of the jobs it holds. The jobs themselves go
// through the daemon's dispatcher, on the event loop, as requests of one more client. A lost
// broker is retried with back-off by each thread; local clients never notice.
#pragma once

#include <boost/asio.hpp>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "common/broker/broker_job.h"
#include "common/broker/redis_connection.h"
#include "daemon/broker/node_config.h"
#include "daemon/server/dispatcher.h"
#include "daemon/server/timing_caps.h"

namespace mrd::daemon {

/// What the node needs of the daemon it runs in.
struct NodeContext {
  Dispatcher* dispatcher = nullptr;
  size_t workers = 1;
  unsigned cores = 1;
  uint32_t max_body = 1u << 20;
  uint32_t max_states = 4096;
  TimingCaps caps;
};

class BrokerNode {
 public:
  BrokerNode(boost::asio::io_context& io, NodeConfig config, NodeContext ctx);
  ~BrokerNode();
  BrokerNode(const BrokerNode&) = delete;
  BrokerNode& operator=(const BrokerNode&) = delete;

  void start();
  /// Stops taking jobs, writes the results already made when the broker is reachable, and
  /// joins the threads. Jobs still measuring are left to other nodes (they take them over
  /// after claim_idle).
  void stop();
  /// On the event loop, when the daemon stops: jobs read from now on are not started.
  void stop_taking();

  /// The dispatcher's client id of the broker's jobs.
  static constexpr uint64_t kClientId = UINT64_MAX;

 private:
  struct Outgoing {
    std::string entry_id;
    std::string reply;                     ///< empty: acknowledge only
    std::optional<broker::ResultEntry> result;
  };

  void read_loop();
  void write_loop();
  std::unique_ptr<broker::RedisConnection> connect();
  void ensure_group(broker::RedisConnection& c);
  void take(broker::RedisConnection& c, const broker::StreamEntry& e, bool claimed);
  /// The task bytes of `hash`, from the cache or the broker; nullptr (and `error`) when they
  /// are gone or do not match their hash.
  std::shared_ptr<const std::string> fetch_task(broker::RedisConnection& c, const std::string& hash,
                                                std::string& error);
  /// On the event loop: checks the job as a socket request is checked, and submits it.
  void run_on_loop(std::string entry_id, broker::JobEntry job,
                   std::shared_ptr<const std::string> task);
  void answer(Outgoing o);
  void answer_error(const std::string& entry_id, const broker::JobEntry& job,
                    const std::string& message);
  void write_result(broker::RedisConnection& c, const Outgoing& o);
  void heartbeat(broker::RedisConnection& c, bool stopped);
  /// Deletes the group's consumers that hold no job and were silent for an hour (nodes gone).
  void forget_gone_consumers(broker::RedisConnection& c);
  /// On the event loop, every kLoadPeriod: how many inputs of local clients wait or run, so
  /// that the node takes jobs only for workers local clients leave free.
  void watch_load();
  /// Waits `delay` or until stop(); false when stopping.
  bool pause(std::chrono::milliseconds delay);

  boost::asio::io_context& io_;
  NodeConfig config_;
  NodeContext ctx_;
  std::string stream_;
  broker::EntryLimits limits_;
  std::chrono::milliseconds heartbeat_period_;
  double started_ = 0;

  std::mutex mutex_;  // guards what follows
  std::condition_variable reader_cv_;
  std::condition_variable writer_cv_;
  bool stopping_ = false;
  size_t taken_ = 0;                 ///< jobs taken and not yet answered
  size_t local_load_ = 0;            ///< inputs of local clients queued or on workers
  std::set<std::string> held_ids_;   ///< their entry ids, renewed with each heartbeat
  std::deque<Outgoing> out_;
  uint64_t measured_ = 0;
  broker::RedisConnection* reader_conn_ = nullptr;

  std::map<std::string, std::shared_ptr<const std::string>> task_cache_;  // reader thread only
  uint64_t next_request_ = 1;                                             // event loop only
  size_t on_loop_ = 0;  ///< event loop only: jobs in the dispatcher
  boost::asio::steady_timer load_timer_;
  std::atomic<bool> loop_stopped_{false};
  std::thread reader_;
  std::thread writer_;
};

}  // namespace mrd::daemon
