#include "client/cli/progress_display.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <sstream>

using namespace mrd;
using cli::ProgressDisplay;
using tune::TunePhase;
using tune::TuneProgress;

namespace {

TuneProgress progress(TunePhase phase, int done, int total, int errors, double gflops,
                      int batch = 1) {
  TuneProgress p;
  p.phase = phase;
  p.trials_done = done;
  p.trials_total = total;
  p.errors = errors;
  p.best_gflops = gflops;
  p.batch = batch;
  return p;
}

/// A clock the test sets.
struct FakeClock {
  double now = 100;
  ProgressDisplay::Clock fn() {
    return [this] { return now; };
  }
};

}  // namespace

TEST_CASE("durations print as m:ss or h:mm:ss, unknown ones as ?") {
  CHECK(cli::format_duration(0) == "0:00");
  CHECK(cli::format_duration(59.4) == "0:59");
  CHECK(cli::format_duration(61) == "1:01");
  CHECK(cli::format_duration(3600 + 62) == "1:01:02");
  CHECK(cli::format_duration(-1) == "?");
}

TEST_CASE("the ETA follows the pace so far and is unknown before the first result") {
  CHECK(cli::estimate_eta(progress(TunePhase::Measuring, 0, 100, 0, 0), 5) < 0);
  CHECK(cli::estimate_eta(progress(TunePhase::Measuring, 25, 100, 0, 0), 10) == Approx(30));
  CHECK(cli::estimate_eta(progress(TunePhase::Measuring, 100, 100, 0, 0), 40) == 0);
}

TEST_CASE("the terminal line shows phase, bar, trials, best, errors, elapsed and ETA") {
  auto p = progress(TunePhase::Measuring, 50, 200, 2, 12.5);
  // 100 columns: the bar takes the 27 the text leaves (a quarter of it filled), and the line
  // stops one short of the edge.
  std::string line = cli::progress_bar_line(p, 42, 100);
  CHECK(line == "measuring         [" + std::string(6, '#') + std::string(21, ' ') +
                    "] 50/200  best 12.50 GFLOP/s  2 errors  0:42 ETA 2:06");
  CHECK(line.size() == 99);
  // The first second: sketches, nothing measured, no ETA.
  CHECK(cli::progress_bar_line(progress(TunePhase::SketchGeneration, 0, 200, 0, 0), 0.2, 100) ==
        "sketch generation [" + std::string(30, ' ') +
            "] 0/200  best 0.00 GFLOP/s  0 errors  0:00 ETA ?");
  // A narrow terminal: the bar shrinks, then goes; the line never wraps.
  auto narrow = cli::progress_bar_line(p, 42, 80);
  CHECK(narrow.size() <= 79);
  CHECK(narrow.find("[#") != std::string::npos);
  auto tiny = cli::progress_bar_line(p, 42, 40);
  CHECK(tiny.size() == 39);
  CHECK(tiny.find('[') == std::string::npos);
  CHECK(cli::progress_bar_line(progress(TunePhase::Evolution, 1, 1, 1, 0), 0, 100)
            .find("1 error  ") != std::string::npos);
}

TEST_CASE("the plain line names the batch and everything the bar shows") {
  CHECK(cli::progress_plain_line(progress(TunePhase::Measuring, 128, 200, 3, 7.5, 2), 64) ==
        "measurer tune: batch 2: 128/200 trials, best 7.50 GFLOP/s, 3 errors, elapsed 1:04, "
        "ETA 0:36");
}

TEST_CASE("the plain line of a confirming batch says that the best states were measured again") {
  TuneProgress p = progress(TunePhase::Confirming, 200, 200, 0, 83.96, 5);
  p.batch_size = 4;
  CHECK(cli::progress_plain_line(p, 53) ==
        "measurer tune: batch 5 (the best 4 measured again): 200/200 trials, best 83.96 GFLOP/s, "
        "0 errors, elapsed 0:53, ETA 0:00");
}

TEST_CASE("without a terminal, the display writes one plain line per batch and nothing else") {
  std::ostringstream out;
  FakeClock clock;
  {
    ProgressDisplay d(out, ProgressDisplay::Mode::Plain, 80, clock.fn());
    d.on_phase(progress(TunePhase::SketchGeneration, 0, 8, 0, 0));
    d.on_phase(progress(TunePhase::Evolution, 0, 8, 0, 0));
    d.on_phase(progress(TunePhase::Measuring, 0, 8, 0, 0));
    clock.now += 3;
    d.on_result(progress(TunePhase::Measuring, 1, 8, 1, 0));
    d.on_result(progress(TunePhase::Measuring, 4, 8, 1, 2.5));
    CHECK(out.str().empty());
    d.on_batch_done(progress(TunePhase::Measuring, 4, 8, 1, 2.5, 1));
    clock.now += 5;
    d.on_batch_done(progress(TunePhase::Measuring, 8, 8, 1, 3.25, 2));
    d.finish();
  }
  CHECK(out.str() ==
        "measurer tune: batch 1: 4/8 trials, best 2.50 GFLOP/s, 1 error, elapsed 0:03, ETA 0:03\n"
        "measurer tune: batch 2: 8/8 trials, best 3.25 GFLOP/s, 1 error, elapsed 0:08, ETA 0:00\n");
}

TEST_CASE("on a terminal, the display redraws one line in place and ends it at finish") {
  std::ostringstream out;
  FakeClock clock;
  ProgressDisplay d(out, ProgressDisplay::Mode::Terminal, 100, clock.fn(),
                    std::chrono::milliseconds(0));
  d.on_phase(progress(TunePhase::SketchGeneration, 0, 4, 0, 0));
  CHECK(out.str() ==
        "\r" + cli::progress_bar_line(progress(TunePhase::SketchGeneration, 0, 4, 0, 0), 0, 100) +
            "\033[K");
  clock.now += 2;
  d.on_result(progress(TunePhase::Measuring, 1, 4, 0, 1));
  d.on_batch_done(progress(TunePhase::Measuring, 4, 4, 0, 1));
  d.finish();
  d.finish();  // once only
  std::string s = out.str();
  CHECK(std::count(s.begin(), s.end(), '\r') == 3);
  CHECK(std::count(s.begin(), s.end(), '\n') == 1);
  CHECK(s.back() == '\n');
  CHECK(s.find("measuring         [##############################] 4/4") != std::string::npos);
}
