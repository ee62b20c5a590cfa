// The C++ client of the broker: measures a batch on the nodes of a device key instead of one
// local measurerd. The task bytes go once to mrd:task:<md5>, each state as one job entry on
// mrd:jobs:<device-key>; the results come back on this client's own result stream
// (mrd:results:<requester id>) and reach the callback in submission order, exactly once per
// state, with the node that measured it. Fair sharing: at most `window` jobs of a request are
// in the job stream at once, so a requester's thousand states queue behind at most `window`
// of another's. A lost broker is reconnected until `reconnect_timeout`; a broker that
// restarted (its run_id changed, its data gone) gets the task and the unanswered jobs again.
// A result that comes twice (a job taken over from a node that still answered) is dropped.
// Blocking; cancel() may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/broker/broker_status.h"
#include "common/broker/redis_connection.h"
#include "common/broker/redis_url.h"
#include "common/measure/measure_types.h"
#include "common/measure/task.h"
#include "common/proto/messages.h"

namespace mrd::client {

struct BrokerOptions {
  broker::RedisEndpoint endpoint;
  std::string device_key;  ///< empty: broker::local_device_key()
  size_t window = 32;      ///< jobs of a request in the stream at once
  double reconnect_timeout = 60;  ///< seconds to wait for a lost broker before giving up
};

class BrokerClient {
 public:
  /// Connects; throws client::ConnectionError when the broker cannot be reached.
  explicit BrokerClient(BrokerOptions options);
  ~BrokerClient();
  BrokerClient(const BrokerClient&) = delete;
  BrokerClient& operator=(const BrokerClient&) = delete;

  using OnResult = std::function<void(uint32_t index, const measure::MeasureResult& result,
                                      const std::string& node)>;

  /// Measures every state on the device key's nodes. Throws ConnectionError when no node of
  /// the key is alive at the start, or the broker stays away longer than reconnect_timeout.
  proto::RequestDone measure(const std::string& task_bytes, const std::vector<std::string>& states,
                             const measure::MeasureOptions& options, const OnResult& on_result);
  proto::RequestDone measure(const measure::Task& task, const std::vector<std::string>& states,
                             const measure::MeasureOptions& options, const OnResult& on_result);

  /// Sends no more jobs of the measure() in progress: the states not yet sent get an
  /// UNKNOWN_ERROR "cancelled" result, those sent are waited for. False when not measuring.
  bool cancel() noexcept;
  bool cancelled() const { return cancel_requested_.load(); }

  const std::string& device_key() const { return options_.device_key; }
  const std::string& requester_id() const { return requester_; }
  /// The nodes of the device key, alive or not.
  std::vector<broker::NodeInfo> nodes();

 private:
  struct Request;
  void reconnect();
  void send_jobs(Request& r, const std::vector<uint32_t>& indices);
  void put_task(const std::string& hash, const std::string& bytes);

  BrokerOptions options_;
  std::string requester_;
  std::unique_ptr<broker::RedisConnection> conn_;
  std::string run_id_;
  std::string last_result_id_ = "0-0";
  uint64_t next_request_ = 1;
  std::atomic<bool> measuring_{false};
  std::atomic<bool> cancel_requested_{false};
};

}  // namespace mrd::client
