#include "daemon/server/dispatcher.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdint>
#include <ctime>

#include "common/measure/task.h"

namespace mrd::daemon {

using measure::MeasureErrorNo;
using measure::MeasureResult;

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

Dispatcher::Dispatcher(WorkerPool& pool, measure::TimingPolicy policy, std::vector<int> cores)
    : pool_(pool), policy_(policy), cores_(std::move(cores)) {
  if (cores_.empty()) cores_ = allowed_cores();
  std::weak_ptr<bool> alive = alive_;
  pool_.set_on_idle([this, alive] {
    if (alive.lock()) schedule();
  });
}

Dispatcher::~Dispatcher() {
  pool_.set_on_idle({});
}

bool Dispatcher::submit(uint64_t client, proto::MeasureRequest request, RequestSink sink) {
  Key key{client, request.request_id};
  if (requests_.count(key)) return false;
  auto r = std::make_unique<Request>();
  r->serial = next_serial_++;
  r->task = make_task_bytes(std::move(request.task));
  r->task_key.assign(r->task->digest.sha256.begin(), r->task->digest.sha256.end());
  r->options = request.options;
  if (policy_ == measure::TimingPolicy::Pinned) {
    // The one field of the task the daemon reads. A task that does not decode fails in its
    // builds (the worker says why) and never reaches a run.
    int num_cores = 0;
    try {
      num_cores = measure::task_from_binary(r->task->bytes).hardware.num_cores;
    } catch (const std::exception&) {
    }
    r->split = split_cores(cores_, num_cores);
    if (!r->split && !request.states.empty())
      spdlog::info("request {} of client {}: num_cores {} leaves none of the {} cores for builds; "
                   "its runs are timed with nothing else active", request.request_id, client,
                   num_cores == 0 ? "0 (every core)" : std::to_string(num_cores), cores_.size());
  }
  r->inputs.resize(request.states.size());
  for (size_t i = 0; i < request.states.size(); ++i)
    r->inputs[i].steps = std::move(request.states[i]);
  r->results.resize(request.states.size());
  r->sink = std::move(sink);
  queued_ += r->inputs.size();
  Request& ref = *r;
  requests_.emplace(key, std::move(r));
  build_turns_.join(client);
  run_turns_.join(client);
  emit(key, ref);  // an empty request is done now
  schedule();
  return true;
}

bool Dispatcher::cancel(uint64_t client, uint64_t request_id) {
  Key key{client, request_id};
  auto it = requests_.find(key);
  if (it == requests_.end()) return false;
  Request& r = *it->second;
  std::vector<uint32_t> waiting;
  for (uint32_t i = 0; i < r.inputs.size(); ++i) {
    auto s = r.inputs[i].state;
    if (s == InputState::Queued || s == InputState::Built) waiting.push_back(i);
  }
  drop_waiting(r);
  r.cancelled = true;
  for (uint32_t i : waiting) {
    MeasureResult res;
    res.error_no = MeasureErrorNo::UnknownError;
    res.error_msg = "cancelled";
    r.inputs[i].state = InputState::Done;
    r.results[i] = std::move(res);
    r.results[i]->policy = policy_;
    r.results[i]->timestamp = now_seconds();
    ++r.errors;
  }
  emit(key, r);  // may erase the request
  schedule();
  return true;
}

size_t Dispatcher::fail_waiting(const std::string& why) {
  std::vector<Key> keys;
  for (const auto& [key, r] : requests_) keys.push_back(key);
  size_t failed = 0;
  for (const Key& key : keys) {
    auto it = requests_.find(key);
    if (it == requests_.end()) continue;
    Request& r = *it->second;
    std::vector<uint32_t> waiting;
    for (uint32_t i = 0; i < r.inputs.size(); ++i) {
      auto st = r.inputs[i].state;
      if (st == InputState::Queued || st == InputState::Built) waiting.push_back(i);
    }
    if (waiting.empty()) continue;
    drop_waiting(r);
    for (uint32_t i : waiting) {
      MeasureResult res;
      res.error_no = MeasureErrorNo::UnknownError;
      res.error_msg = why;
      res.policy = policy_;
      res.timestamp = now_seconds();
      r.results[i] = std::move(res);
      ++r.errors;
    }
    failed += waiting.size();
    emit(key, r);  // may erase the request
  }
  return failed;
}

void Dispatcher::drop_waiting(Request& r) {
  for (auto& in : r.inputs) {
    if (in.state == InputState::Queued || in.state == InputState::Built) {
      --queued_;
      if (in.state == InputState::Built) --waiting_runs_;
      in.state = InputState::Done;
    }
  }
  r.built.clear();
  r.next_build = static_cast<uint32_t>(r.inputs.size());
}

void Dispatcher::drop_client(uint64_t client) {
  auto it = requests_.lower_bound(Key{client, 0});
  while (it != requests_.end() && it->first.first == client) {
    drop_waiting(*it->second);
    it = requests_.erase(it);
  }
  paused_.erase(client);
  build_turns_.leave(client);
  run_turns_.leave(client);
  schedule();
}

void Dispatcher::pause_client(uint64_t client) {
  paused_.insert(client);
}

void Dispatcher::resume_client(uint64_t client) {
  if (paused_.erase(client)) schedule();
}

uint64_t Dispatcher::runnable_runs() const {
  uint64_t n = waiting_runs_;
  for (uint64_t client : paused_)
    for (auto it = requests_.lower_bound(Key{client, 0});
         it != requests_.end() && it->first.first == client; ++it)
      n -= it->second->built.size();
  return n;
}

bool Dispatcher::some_request_waits_only_for_timing() const {
  for (const auto& [key, r] : requests_)
    if (!paused(key.first) && r->waits_only_for_timing()) return true;
  return false;
}

void Dispatcher::stop() {
  for (auto& [key, r] : requests_) drop_waiting(*r);
  requests_.clear();
  paused_.clear();
  build_turns_.clear();
  run_turns_.clear();
  *alive_ = false;
  alive_ = std::make_shared<bool>(true);
}

DispatcherStats Dispatcher::stats() const {
  DispatcherStats s;
  s.queued = queued_;
  s.in_flight = building_ + running_;
  s.completed = completed_;
  s.cache_hits = cache_hits_;
  s.requests = requests_.size();
  auto cutoff = std::chrono::steady_clock::now() - std::chrono::seconds(60);
  size_t n = 0;
  for (auto t : recent_) n += t >= cutoff;
  s.throughput = n / 60.0;
  return s;
}

template <class Pred>
Dispatcher::Request* Dispatcher::next_request(ClientTurns& turns, Key& key, Pred pred) {
  for (const auto& [place, client] : turns.queue()) {
    if (paused(client)) continue;
    // Its next request after the one served last, wrapping.
    auto first = requests_.lower_bound(Key{client, 0});
    auto end = requests_.upper_bound(Key{client, UINT64_MAX});
    if (first == end) continue;
    auto last = turns.last_request(client);
    auto start = last ? requests_.upper_bound(Key{client, *last}) : first;
    Request* r = nullptr;
    for (auto it = start; !r && it != end; ++it)
      if (pred(*it->second)) key = it->first, r = it->second.get();
    for (auto it = first; !r && it != start; ++it)
      if (pred(*it->second)) key = it->first, r = it->second.get();
    if (r) {
      turns.served(key.first, key.second);  // ends the walk: the queue changes
      return r;
    }
  }
  return nullptr;
}

void Dispatcher::schedule() {
  if (policy_ == measure::TimingPolicy::Pinned) return schedule_pinned();
  while (pool_.idle() > 0) {
    if (policy_ == measure::TimingPolicy::Exclusive) {
      if (running_ > 0) return;
      uint64_t runs = runnable_runs();
      if (runs == 0) timing_phase_ = false;
      bool backlog_full = runs >= run_batch() || (runs > 0 && some_request_waits_only_for_timing());
      if (!timing_phase_ && !backlog_full && start_build()) continue;
      if (runs == 0 || building_ > 0) return;
      timing_phase_ = true;  // until the backlog is timed, no build starts
      start_run();
      return;
    }
    if (start_run()) continue;
    if (!start_build()) return;
  }
}

std::vector<int> Dispatcher::run_cores(const Request& r) const {
  return r.split ? r.split->timing : cores_;
}

std::vector<int> Dispatcher::build_cores() const {
  std::vector<int> out;
  for (int c : cores_)
    if (std::find(run_cores_.begin(), run_cores_.end(), c) == run_cores_.end()) out.push_back(c);
  return out;
}

void Dispatcher::schedule_pinned() {
  while (pool_.idle() > 0) {
    if (running_ == 0) {
      // A run that leaves cores to the builds starts at once (they move off its cores); one
      // that needs every core only when nothing builds.
      if (start_run([](const Request& q) { return q.split.has_value(); })) continue;
      if (building_ == 0 && start_run()) continue;
    }
    bool needs_all = running_ > 0 ? run_cores_.size() == cores_.size() : false;
    if (running_ == 0)
      for (const auto& [key, q] : requests_)
        if (!paused(key.first) && !q->built.empty() && !q->split) needs_all = true;
    if (needs_all || !start_build()) return;
  }
}

size_t Dispatcher::run_batch() const { return kRunBatchPerWorker * std::max<size_t>(1, pool_.size()); }

bool Dispatcher::start_build(const std::function<bool(const Request&)>& allowed) {
  Key key;
  Request* r = next_request(build_turns_, key, [&](const Request& q) {
    return q.next_build_ready() && (!allowed || allowed(q));
  });
  if (!r) return false;
  uint32_t index = r->next_build++;
  Input& in = r->inputs[index];
  in.state = InputState::Building;
  r->building_steps.insert(in.steps);
  ++r->building;
  --queued_;
  ++building_;
  Job job;
  job.phase = Phase::Build;
  job.task = r->task;
  job.steps = in.steps;
  job.options = r->options;
  if (policy_ == measure::TimingPolicy::Pinned) job.cores = build_cores();
  std::weak_ptr<bool> alive = alive_;
  uint64_t serial = r->serial;
  pool_.submit(std::move(job), [this, alive, key, serial, index](JobOutcome o) {
    if (alive.lock()) on_job_done(key, serial, index, Phase::Build, std::move(o));
  });
  return true;
}

bool Dispatcher::start_run(const std::function<bool(const Request&)>& allowed) {
  if (waiting_runs_ == 0) return false;
  Key key;
  Request* r = next_request(run_turns_, key, [&](const Request& q) {
    return !q.built.empty() && (!allowed || allowed(q));
  });
  if (!r) return false;
  uint32_t index = *r->built.begin();
  r->built.erase(r->built.begin());
  Input& in = r->inputs[index];
  in.state = InputState::Running;
  --queued_;
  --waiting_runs_;
  ++running_;
  Job job;
  job.phase = Phase::Run;
  job.task = r->task;
  job.steps = in.steps;
  job.artifact = in.artifact;
  job.options = r->options;
  if (r->options.skip_hopeless) {
    auto best = best_costs_.find(r->task_key);
    if (best != best_costs_.end()) job.best_cost = best->second;
  }
  if (policy_ == measure::TimingPolicy::Pinned) {
    run_cores_ = job.cores = run_cores(*r);
    if (building_ > 0) pool_.pin_builds(build_cores());  // off the run's cores first
  }
  std::weak_ptr<bool> alive = alive_;
  uint64_t serial = r->serial;
  pool_.submit(std::move(job), [this, alive, key, serial, index](JobOutcome o) {
    if (alive.lock()) on_job_done(key, serial, index, Phase::Run, std::move(o));
  });
  return true;
}

void Dispatcher::on_job_done(Key key, uint64_t serial, uint32_t index, Phase phase,
                             JobOutcome outcome) {
  (phase == Phase::Build ? building_ : running_)--;
  if (phase == Phase::Run && policy_ == measure::TimingPolicy::Pinned) {
    run_cores_.clear();
    if (building_ > 0) pool_.pin_builds(cores_);  // the builds take every core again
  }
  auto it = requests_.find(key);
  if (it != requests_.end() && it->second->serial == serial) {
    Request& r = *it->second;
    Input& in = r.inputs[index];
    if (phase == Phase::Build) {
      r.building_steps.erase(in.steps);
      --r.building;
      if (outcome.result.error_no != MeasureErrorNo::NoError) {
        finish(key, r, index, std::move(outcome.result));
      } else if (r.cancelled) {
        outcome.result.error_no = MeasureErrorNo::UnknownError;
        outcome.result.error_msg = "cancelled";
        finish(key, r, index, std::move(outcome.result));
      } else {
        in.state = InputState::Built;
        in.artifact = std::move(outcome.artifact);
        in.build = std::move(outcome.result);
        r.built.insert(index);
        ++queued_;
        ++waiting_runs_;
      }
    } else {
      MeasureResult res = std::move(outcome.result);
      note_best(r.task_key, res);
      res.build_seconds = in.build.build_seconds;
      res.cache_hit = in.build.cache_hit;
      res.all_cost = in.build.all_cost + res.all_cost;
      finish(key, r, index, std::move(res));
    }
  }
  schedule();
}

double Dispatcher::best_cost(const std::string& task) const {
  proto::TaskDigest d = proto::task_digest(task);
  auto it = best_costs_.find(std::string(d.sha256.begin(), d.sha256.end()));
  return it == best_costs_.end() ? 0.0 : it->second;
}

void Dispatcher::note_best(const std::string& task_key, const MeasureResult& result) {
  if (result.error_no != MeasureErrorNo::NoError || result.timing_skipped || result.costs.empty()) return;
  double sum = 0;
  for (double c : result.costs) sum += c;
  double mean = sum / double(result.costs.size());
  if (!(mean > 0)) return;
  auto [it, inserted] = best_costs_.emplace(task_key, mean);
  if (inserted) {
    best_order_.push_back(task_key);
    if (best_order_.size() > kMaxBestCosts) {
      best_costs_.erase(best_order_.front());
      best_order_.pop_front();
    }
  } else if (mean < it->second) {
    it->second = mean;
  }
}

void Dispatcher::finish(Key key, Request& r, uint32_t index, MeasureResult result) {
  result.policy = policy_;
  if (result.timestamp == 0) result.timestamp = now_seconds();
  ++completed_;
  cache_hits_ += result.cache_hit;
  auto now = std::chrono::steady_clock::now();
  recent_.push_back(now);
  while (!recent_.empty() && recent_.front() < now - std::chrono::seconds(60)) recent_.pop_front();
  if (result.error_no != MeasureErrorNo::NoError) ++r.errors;
  r.inputs[index].state = InputState::Done;
  r.inputs[index].artifact.clear();
  r.results[index] = std::move(result);
  emit(key, r);
}

void Dispatcher::emit(Key key, Request& r) {
  while (r.next_emit < r.results.size() && r.results[r.next_emit]) {
    if (r.sink.on_result) r.sink.on_result(r.next_emit, *r.results[r.next_emit]);
    r.results[r.next_emit].reset();
    ++r.next_emit;
  }
  if (r.next_emit == r.results.size()) {
    proto::RequestDone done;
    done.request_id = key.second;
    done.count = static_cast<uint32_t>(r.results.size());
    done.errors = r.errors;
    RequestSink sink = std::move(r.sink);
    requests_.erase(key);
    if (sink.on_done) sink.on_done(done);
  }
}

}  // namespace mrd::daemon
