// The progress of `measurer tune` on stderr, from its first second: the phase (sketch
// generation, evolution, measuring), trials done of the total, best GFLOP/s so far, errors,
// elapsed time and ETA. On a terminal, one bar line redrawn in place at each result and once a
// second (so that the clock moves during a long phase); otherwise one plain line per batch,
// for logs. The line formats are pure functions; the clock is a seam for tests.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

#include "client/tune/tuner.h"

namespace mrd::cli {

/// "m:ss" or "h:mm:ss"; "?" for a negative or unknown time.
std::string format_duration(double seconds);
/// Seconds left at the pace so far: elapsed / done × (total − done); negative when unknown
/// (nothing measured yet).
double estimate_eta(const tune::TuneProgress& p, double elapsed);
/// The terminal line, shorter than `width` columns: phase, a bar in the columns left (none
/// when fewer than 5), then "64/200  best 12.34 GFLOP/s  2 errors  0:42 ETA 1:30".
std::string progress_bar_line(const tune::TuneProgress& p, double elapsed, int width);
/// The line for a log, one per batch:
/// "measurer tune: batch 1: 64/200 trials, best 12.34 GFLOP/s, 2 errors, elapsed 0:42, ETA 1:30".
std::string progress_plain_line(const tune::TuneProgress& p, double elapsed);

class ProgressDisplay : public tune::TuneObserver {
 public:
  enum class Mode { Terminal, Plain };
  /// Seconds on a monotonic clock.
  using Clock = std::function<double()>;
  static double steady_seconds();

  /// `width`: the terminal's columns. `tick`: the redraw interval of the terminal line between
  /// results (zero: only at events).
  ProgressDisplay(std::ostream& out, Mode mode, int width, Clock clock = steady_seconds,
                  std::chrono::milliseconds tick = std::chrono::seconds(1));
  /// For stderr: Terminal when stderr is a terminal (and TERM is not "dumb"), at its width.
  static Mode stderr_mode();
  static int stderr_width();
  ~ProgressDisplay() override;

  void on_phase(const tune::TuneProgress& p) override;
  void on_result(const tune::TuneProgress& p) override;
  void on_batch_done(const tune::TuneProgress& p) override;
  /// Ends the terminal line (a newline once something was drawn) and stops redrawing.
  void finish();

 private:
  void draw_locked();
  void tick_loop();

  std::ostream& out_;
  Mode mode_;
  int width_;
  Clock clock_;
  std::chrono::milliseconds tick_;
  double start_;
  std::mutex mutex_;  // guards the state below and the output, against the ticker
  tune::TuneProgress last_;
  bool drawn_ = false;
  bool finished_ = false;
  std::condition_variable wake_;
  std::thread ticker_;
};

}  // namespace mrd::cli
