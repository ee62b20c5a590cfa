// The soak's clients: N threads, each with its own connection, take the planned requests in
// turn and measure them through the client library, checking every result against the code
// its input must get. A request marked to be cut is abandoned by closing the connection after
// that many results (its remaining inputs count as cut, not lost). Past the submission
// deadline no new request starts; requests under way are read to their end.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "client/lib/client.h"
#include "tests/soak/request_plan.h"

namespace mrd::soak {

/// What the clients saw. Guarded by ClientRunner's mutex while they run.
struct Tally {
  uint64_t submitted = 0;  ///< inputs sent to the daemon
  uint64_t received = 0;   ///< results received
  uint64_t cut = 0;        ///< inputs of abandoned requests whose result was not waited for
  uint64_t lost = 0;       ///< inputs that should have had a result and did not
  uint64_t wrong = 0;      ///< results with an error code other than the expected one
  uint64_t unsent = 0;     ///< planned inputs not sent because the deadline passed
  /// Results that failed because a worker was killed with SIGKILL (COMPILE_HOST or
  /// RUNTIME_DEVICE, "signal 9"); legitimate up to the number of kills made.
  uint64_t killed = 0;
  std::vector<std::string> killed_details;
  std::vector<std::string> problems;  ///< one line per lost input or wrong code
};

class ClientRunner {
 public:
  ClientRunner(std::string socket_path, const std::vector<PlannedRequest>& plan);
  ~ClientRunner();

  /// Starts `clients` threads; none submits after `submit_deadline`.
  void start(int clients, std::chrono::steady_clock::time_point submit_deadline);
  /// Waits for every thread, up to `until`; true when all finished. On false, the inputs of
  /// requests still under way are counted as lost.
  bool wait(std::chrono::steady_clock::time_point until);
  /// Results received so far (read by the worker killer).
  uint64_t received() const { return received_; }
  /// Blocks until `received() >= n`, every client finished, or `stop` is set.
  void wait_received(uint64_t n, const std::atomic<bool>& stop);
  /// Wakes whoever waits in wait_received (after setting their stop flag).
  void wake();
  Tally tally();

 private:
  /// The state of a client thread's current request, for the report on a hung drain.
  struct Current {
    const PlannedRequest* request = nullptr;
    size_t index = 0;
    size_t results = 0;
  };
  void client_loop(int id, std::chrono::steady_clock::time_point submit_deadline);
  void run_request(int id, size_t index, std::unique_ptr<client::Client>& conn);
  void record_result(int id, size_t index, uint32_t input, const measure::MeasureResult& r);

  std::string socket_path_;
  const std::vector<PlannedRequest>& plan_;
  std::atomic<size_t> next_{0};
  std::atomic<uint64_t> received_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  Tally tally_;
  std::vector<Current> current_;
  size_t running_threads_ = 0;
  std::vector<std::thread> threads_;
  bool abandoned_ = false;
};

}  // namespace mrd::soak
