// TVM's time evaluator: one discarded warm-up call, then `repeat` repeats of `number` calls.
// A repeat shorter than min_repeat_ms grows `number` to
// max(min_repeat_ms / (t / number) + 1, 1.618 * number) and is redone (the grown number
// carries over to later repeats; at most 100 redos of a repeat that measured exactly zero).
// The cost of a repeat is its time divided by its number of calls. With the CPU cache flush
// on, `before_repeat` runs before each repeat and number = 1, min_repeat_ms = 0, as TVM's
// runner forces. cooldown_interval is slept after each repeat. The clock is a seam so the
// growth rule is tested without real time.
//
// With calibrate_from_warmup (what the measurement pipeline uses), the warm-up call is timed
// and `number` starts at ceil(min_repeat_ms / warm-up time) when that is larger, so the first
// repeat already lasts about min_repeat_ms instead of being thrown away and redone. If it
// still falls short (the warm-up call was slower than the calls after it), the repeat is
// extended by the calls it lacks, not redone, and the extended number carries over. The cost
// keeps TVM's meaning (time per call of one contiguous repeat of at least min_repeat_ms). Calibration saves the calls of the repeats TVM would
// redo: for a kernel whose `number` calls last less than min_repeat_ms, TVM times 3, then
// about 5, 8, ... calls until one repeat is long enough and throws those away
// (TimerOutcome::discarded_calls counts them without calibration; with it they are 0).
//
// With give_up_after_warmup > 0, a warm-up call slower than that many seconds ends the timing
// at once: `skipped` is set and the warm-up's time is the one cost (skip-hopeless).
#pragma once

#include <atomic>
#include <functional>
#include <vector>

namespace mrd::measure {

class Clock {
 public:
  virtual ~Clock() = default;
  /// Seconds on a monotonic clock.
  virtual double now() = 0;
  virtual void sleep(double seconds) = 0;
};

/// std::chrono::steady_clock and std::this_thread::sleep_for.
class SteadyClock : public Clock {
 public:
  double now() override;
  void sleep(double seconds) override;
};

struct TimerConfig {
  int number = 3;
  int repeat = 1;
  int min_repeat_ms = 100;
  double cooldown_interval = 0.0;
  bool cache_flush = false;
  /// Start `number` from the timed warm-up call (see above).
  bool calibrate_from_warmup = false;
  /// Seconds: a slower warm-up call ends the timing (see above); <= 0: never.
  double give_up_after_warmup = 0.0;
  /// Clock time after which no new batch of calls starts (<= 0: none).
  double deadline = 0.0;
  /// When set (by a watchdog), timing stops after the call in progress.
  const std::atomic<bool>* stop = nullptr;
};

struct TimerOutcome {
  std::vector<double> costs;  ///< seconds per call, one per repeat
  bool timed_out = false;     ///< the deadline passed or stop was set before the end
  int final_number = 0;       ///< calls per repeat at the end
  int discarded_calls = 0;    ///< timed calls of repeats redone because they were too short
  /// With calibration: the calls TVM's rule would have timed and thrown away at the warm-up's
  /// speed (short first attempts of each repeat), which calibration did not make.
  int calls_saved = 0;
  double warmup_seconds = 0;  ///< the warm-up call's time
  double timed_seconds = 0;   ///< clock time from the warm-up's end to the timing's end
  bool skipped = false;       ///< give_up_after_warmup ended the timing after the warm-up
};

/// Times `call`. `before_repeat` may be empty.
TimerOutcome time_calls(const std::function<void()>& call, const std::function<void()>& before_repeat,
                        const TimerConfig& config, Clock& clock);

}  // namespace mrd::measure
