// The dispatcher owns the queue: requests from every client, each a list of inputs that go
// through a build and then a run. It hands jobs to the worker pool fairly — between clients
// (connections), the one whose last turn is the oldest first (ClientTurns: a connection that
// arrives later goes ahead of the one served last only, never of one already waiting), then
// round robin between the requests of the client, separately for builds and runs — under the
// timing policy, and streams each request's results back in its submission order. A client with many requests gets no more
// turns than one with a single request.
//
// Timing policy `exclusive`: a run starts only when no build and no other run is active. Work
// alternates between phases, as TVM's measure batches do: every worker builds until the
// built-but-not-timed backlog reaches kRunBatchPerWorker per worker, a request has nothing
// left but timing (so that a small request does not wait for a stream of other builds), or
// nothing is left to build; then the builds in flight finish and the backlog is timed one candidate at a time,
// with no build started meanwhile. `shared`: builds and runs take any idle worker, runs first.
// `pinned`: one run at a time, its worker pinned to the last num_cores cores (the task's
// HardwareParams), while the other workers build: when a run starts, the builds in progress
// move onto the other cores and new builds start there; when it ends, the builds take every
// core again. A task whose num_cores leaves no core for builds (0 = every core) has its runs
// timed with nothing else active: such a run waits for the builds to end and no build starts
// meanwhile (logged once per request). On a machine of fewer than two cores the daemon runs
// `exclusive` instead (and says so).
//
// Skip-hopeless: the dispatcher keeps the best mean cost timed for each task (its bytes:
// workload, target, hardware) and sends it with each run, so that a run of a request with
// options.skip_hopeless can stop after a hopeless warm-up.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/measure/measure_types.h"
#include "common/proto/messages.h"
#include "daemon/server/client_turns.h"
#include "daemon/server/core_split.h"
#include "daemon/server/worker_pool.h"

namespace mrd::daemon {

/// Where a request's results go; both run on the event loop.
struct RequestSink {
  std::function<void(uint32_t index, const measure::MeasureResult&)> on_result;
  std::function<void(const proto::RequestDone&)> on_done;
};

struct DispatcherStats {
  uint64_t queued = 0;     ///< inputs waiting for a build or a run
  uint64_t in_flight = 0;  ///< jobs on workers
  uint64_t completed = 0;
  uint64_t cache_hits = 0;
  uint64_t requests = 0;  ///< requests not yet done
  double throughput = 0;  ///< results per second over the last minute
};

class Dispatcher {
 public:
  /// `cores`: what the pinned policy divides (empty: the cores this process may use).
  Dispatcher(WorkerPool& pool, measure::TimingPolicy policy, std::vector<int> cores = {});
  ~Dispatcher();
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  /// Queues a request of `client`. False (nothing queued) when the client already has a
  /// request with this id in flight. An empty request is done at once.
  bool submit(uint64_t client, proto::MeasureRequest request, RequestSink sink);
  /// Inputs of the request not yet started get an UNKNOWN_ERROR "cancelled" result; jobs on
  /// workers finish normally. False when no such request is in flight.
  bool cancel(uint64_t client, uint64_t request_id);
  /// Forgets every request of a client that went away; their queued inputs are dropped and the
  /// results of their jobs on workers are discarded.
  void drop_client(uint64_t client);
  /// A client that does not read its results: none of its jobs starts until it is resumed
  /// (jobs on workers finish). Its waiting candidates do not hold up anyone else's.
  void pause_client(uint64_t client);
  void resume_client(uint64_t client);
  /// Every input not yet on a worker gets an UNKNOWN_ERROR result saying `why` (no worker can
  /// take it); jobs on workers finish normally. Returns how many inputs failed.
  size_t fail_waiting(const std::string& why);
  /// Drops everything; used at shutdown.
  void stop();

  measure::TimingPolicy policy() const { return policy_; }
  /// Built candidates per worker that end a build phase under the exclusive policy.
  static constexpr size_t kRunBatchPerWorker = 8;
  /// Tasks whose best cost is remembered for skip-hopeless (the oldest is forgotten first).
  static constexpr size_t kMaxBestCosts = 4096;
  DispatcherStats stats() const;
  /// The best mean cost timed for a task (its bytes) so far; 0 when none.
  double best_cost(const std::string& task) const;

 private:
  enum class InputState { Queued, Building, Built, Running, Done };
  struct Input {
    InputState state = InputState::Queued;
    std::string steps;
    std::string artifact;
    measure::MeasureResult build;
  };
  using Key = std::pair<uint64_t, uint64_t>;  // (client, request id)
  struct Request {
    uint64_t serial = 0;
    std::shared_ptr<const TaskBytes> task;
    std::string task_key;  ///< the task digest's SHA-256: where its best cost is kept
    /// The pinned policy: the cores of its runs and of its builds; nullopt when its runs need
    /// every core.
    std::optional<CoreSplit> split;
    measure::MeasureOptions options;
    std::vector<Input> inputs;
    std::vector<std::optional<measure::MeasureResult>> results;
    uint32_t next_emit = 0;
    uint32_t next_build = 0;   ///< inputs before it have left the Queued state
    std::set<uint32_t> built;  ///< built, waiting for a run
    /// Steps of the inputs building now. An input repeating one of them waits for that build
    /// and then finds its shared object in the build cache instead of compiling it again.
    std::set<std::string> building_steps;
    bool next_build_ready() const {
      return next_build < inputs.size() && !building_steps.count(inputs[next_build].steps);
    }
    uint32_t building = 0;  ///< inputs building now
    /// Every input has left the queue and none is building: only timing is left to do.
    bool waits_only_for_timing() const {
      return !built.empty() && building == 0 && next_build >= inputs.size();
    }
    uint32_t errors = 0;
    bool cancelled = false;
    RequestSink sink;
  };

  void schedule();
  bool paused(uint64_t client) const { return paused_.count(client) > 0; }
  /// Built candidates waiting for a run whose client is not paused.
  uint64_t runnable_runs() const;
  /// A request of a client not paused has nothing left to do but timing.
  bool some_request_waits_only_for_timing() const;
  size_t run_batch() const;
  /// Starts the next build (or run) due, of a request that `allowed` accepts (empty: any).
  bool start_build(const std::function<bool(const Request&)>& allowed = {});
  bool start_run(const std::function<bool(const Request&)>& allowed = {});
  void schedule_pinned();
  /// The cores a run of `r` times on (pinned policy).
  std::vector<int> run_cores(const Request& r) const;
  /// The cores builds may use now: those the run in progress leaves (pinned policy).
  std::vector<int> build_cores() const;
  void note_best(const std::string& task_key, const measure::MeasureResult& result);
  /// The next request that satisfies `pred`, of a client not paused: of the first client in
  /// `turns` that has one, its next request after its last served (wrapping).
  template <class Pred>
  Request* next_request(ClientTurns& turns, Key& key, Pred pred);
  void on_job_done(Key key, uint64_t serial, uint32_t index, Phase phase, JobOutcome outcome);
  void finish(Key key, Request& r, uint32_t index, measure::MeasureResult result);
  void emit(Key key, Request& r);
  void drop_waiting(Request& r);

  WorkerPool& pool_;
  measure::TimingPolicy policy_;
  std::vector<int> cores_;
  std::vector<int> run_cores_;          ///< pinned: the cores of the run in progress
  std::map<std::string, double> best_costs_;
  std::deque<std::string> best_order_;  ///< keys of best_costs_, oldest first
  std::map<Key, std::unique_ptr<Request>> requests_;
  std::set<uint64_t> paused_;
  ClientTurns build_turns_;
  ClientTurns run_turns_;
  uint64_t next_serial_ = 1;
  uint64_t queued_ = 0;  // inputs Queued or Built
  uint64_t waiting_runs_ = 0;
  uint64_t building_ = 0;
  uint64_t running_ = 0;
  bool timing_phase_ = false;  ///< exclusive policy: timing the backlog, no build starts
  uint64_t completed_ = 0;
  uint64_t cache_hits_ = 0;
  std::deque<std::chrono::steady_clock::time_point> recent_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace mrd::daemon
