// A worker pool that runs nothing: jobs wait in a list until the test completes them, so the
// dispatcher's scheduling can be checked step by step without processes.
#pragma once

#include <boost/asio.hpp>
#include <vector>

#include "daemon/server/worker_pool.h"

namespace mrd::daemon::testing {

class FakeWorkerPool : public WorkerPool {
 public:
  struct Pending {
    Job job;
    JobDone done;
  };

  explicit FakeWorkerPool(size_t size) : size_(size) {}

  size_t idle() const override { return size_ - jobs.size(); }
  size_t size() const override { return size_; }
  void submit(Job job, JobDone done) override {
    REQUIRE(idle() > 0);
    jobs.push_back({std::move(job), std::move(done)});
    ++submitted;
  }
  void pin_builds(const std::vector<int>& cores) override {
    for (auto& p : jobs)
      if (p.job.phase == Phase::Build) p.job.cores = cores;
  }
  void set_on_idle(std::function<void()> f) override { on_idle_ = std::move(f); }
  std::vector<proto::WorkerStatus> status() const override { return {}; }
  void stop() override { jobs.clear(); }

  /// Finishes job `i` (in submission order among pending jobs) with `outcome`.
  void complete(size_t i, JobOutcome outcome = {}) {
    REQUIRE(i < jobs.size());
    Pending p = std::move(jobs[i]);
    jobs.erase(jobs.begin() + static_cast<long>(i));
    if (p.job.phase == Phase::Build && outcome.artifact.empty() &&
        outcome.result.error_no == measure::MeasureErrorNo::NoError)
      outcome.artifact = "artifact:" + p.job.steps;
    p.done(std::move(outcome));
  }
  size_t count(Phase phase) const {
    size_t n = 0;
    for (const auto& p : jobs) n += p.job.phase == phase;
    return n;
  }

  std::vector<Pending> jobs;
  size_t submitted = 0;

 private:
  size_t size_;
  std::function<void()> on_idle_;
};

}  // namespace mrd::daemon::testing
