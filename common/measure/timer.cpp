#include "common/measure/timer.h"

#include <algorithm>
#include <cmath>
#include <chrono>
#include <thread>

namespace mrd::measure {
namespace {

constexpr double kGoldenRatio = 1.618;
// Calls added to a short calibrated repeat: a little more than the shortfall, so one extension
// is enough when the calls are steady.
constexpr double kCalibrationMargin = 1.1;

// The calls TVM's rule throws away before a repeat of `number` calls of `per_call_ms` each
// lasts min_repeat_ms.
int calls_discarded_by_growth(int number, double per_call_ms, double min_repeat_ms) {
  int discarded = 0;
  for (int i = 0; i < 100 && number * per_call_ms < min_repeat_ms; ++i) {
    discarded += number;
    number = static_cast<int>(std::min(std::max(min_repeat_ms / per_call_ms + 1, number * kGoldenRatio), 1e9));
  }
  return discarded;
}

}  // namespace

double SteadyClock::now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void SteadyClock::sleep(double seconds) {
  if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

TimerOutcome time_calls(const std::function<void()>& call, const std::function<void()>& before_repeat,
                        const TimerConfig& config, Clock& clock) {
  constexpr int kMaxZeroRedos = 100;
  TimerOutcome out;
  int number = std::max(1, config.number);
  double min_repeat_ms = std::max(0, config.min_repeat_ms);
  if (config.cache_flush) {
    number = 1;
    min_repeat_ms = 0;
  }
  auto stopped = [&] { return config.stop && config.stop->load(std::memory_order_relaxed); };
  auto past_deadline = [&] { return stopped() || (config.deadline > 0 && clock.now() > config.deadline); };

  double warmup_start = clock.now();
  call();  // warm-up, not part of any cost
  double warmup_end = clock.now();
  double warmup_ms = (warmup_end - warmup_start) * 1e3;
  auto finish = [&](TimerOutcome& o) -> TimerOutcome& {
    o.timed_seconds = clock.now() - warmup_end;
    return o;
  };
  out.warmup_seconds = warmup_ms / 1e3;
  if (config.give_up_after_warmup > 0 && out.warmup_seconds > config.give_up_after_warmup && !stopped()) {
    out.skipped = true;
    out.costs = {out.warmup_seconds};
    out.final_number = number;
    return finish(out);
  }
  if (config.calibrate_from_warmup && warmup_ms > 0 && min_repeat_ms > 0) {
    double wanted = std::ceil(min_repeat_ms / warmup_ms);
    out.calls_saved = calls_discarded_by_growth(number, warmup_ms, min_repeat_ms);
    number = static_cast<int>(std::clamp(wanted, static_cast<double>(number), 1e9));
  }
  if (stopped()) {
    out.timed_out = true;
    out.final_number = number;
    return finish(out);
  }
  for (int r = 0; r < std::max(1, config.repeat); ++r) {
    if (past_deadline()) {
      out.timed_out = true;
      break;
    }
    if (config.cache_flush && before_repeat) before_repeat();
    double duration_ms = 0.0;
    int zero_times = 0;
    bool stop = false;
    do {
      if (duration_ms > 0.0) {
        out.discarded_calls += number;
        double grown = std::max(min_repeat_ms / (duration_ms / number) + 1, number * kGoldenRatio);
        number = static_cast<int>(std::min(grown, 1e9));
      }
      if (past_deadline()) {
        stop = true;
        break;
      }
      double start = clock.now();
      for (int i = 0; i < number; ++i) {
        call();
        if (stopped()) break;
      }
      duration_ms = (clock.now() - start) * 1e3;
      // Calibrated, a repeat that falls short (the warm-up was slower than the calls after
      // it) is extended by the calls it still needs rather than thrown away and redone: one
      // contiguous run of `number` calls of at least min_repeat_ms, as TVM's rule ends with.
      while (config.calibrate_from_warmup && duration_ms > 0.0 && duration_ms < min_repeat_ms &&
             !stopped() && !past_deadline()) {
        double per_call_ms = duration_ms / number;
        int more = static_cast<int>(std::min(
            std::ceil((min_repeat_ms - duration_ms) * kCalibrationMargin / per_call_ms), 1e9));
        more = std::max(more, 1);
        for (int i = 0; i < more; ++i) {
          call();
          if (stopped()) break;
        }
        number += more;
        duration_ms = (clock.now() - start) * 1e3;
      }
      if (stopped()) {
        stop = true;
        break;
      }
      if (duration_ms == 0.0) ++zero_times;
    } while (duration_ms < min_repeat_ms && zero_times < kMaxZeroRedos);
    if (stop) {
      out.timed_out = true;
      break;
    }
    out.costs.push_back(duration_ms / 1e3 / number);
    if (config.cooldown_interval > 0) clock.sleep(config.cooldown_interval);
  }
  out.final_number = number;
  return finish(out);
}

}  // namespace mrd::measure
