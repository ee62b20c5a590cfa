#include "client/cli/progress_display.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace mrd::cli {
namespace {

std::string gflops_text(double gflops) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "best %.2f GFLOP/s", gflops);
  return buf;
}

std::string errors_text(int errors) {
  return std::to_string(errors) + (errors == 1 ? " error" : " errors");
}

std::string trials_text(const tune::TuneProgress& p) {
  return std::to_string(p.trials_done) + "/" + std::to_string(p.trials_total);
}

}  // namespace

std::string format_duration(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return "?";
  long s = std::lround(seconds);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

double estimate_eta(const tune::TuneProgress& p, double elapsed) {
  if (p.trials_done <= 0) return -1;
  int left = std::max(0, p.trials_total - p.trials_done);
  return elapsed / p.trials_done * left;
}

std::string progress_bar_line(const tune::TuneProgress& p, double elapsed, int width) {
  char phase[32];
  std::snprintf(phase, sizeof phase, "%-17s", tune::tune_phase_name(p.phase));
  std::string rest = " " + trials_text(p) + "  " + gflops_text(p.best_gflops) + "  " +
                     errors_text(p.errors) + "  " + format_duration(elapsed) + " ETA " +
                     format_duration(estimate_eta(p, elapsed));
  std::string line = phase;
  // The bar takes what the columns leave, up to 30; below 5 it is left out.
  int room = width - 1 - static_cast<int>(line.size() + rest.size()) - 3;
  int bar = std::min(room, 30);
  if (bar >= 5) {
    int filled = p.trials_total > 0
                     ? static_cast<int>(static_cast<long long>(bar) *
                                        std::min(p.trials_done, p.trials_total) / p.trials_total)
                     : 0;
    line += " [" + std::string(filled, '#') + std::string(bar - filled, ' ') + "]";
  }
  line += rest;
  if (width > 1 && static_cast<int>(line.size()) > width - 1) line.resize(width - 1);
  return line;
}

std::string progress_plain_line(const tune::TuneProgress& p, double elapsed) {
  std::string batch = "batch " + std::to_string(p.batch);
  // A confirming batch is not more trials: its best may be lower than the line before said.
  if (p.phase == tune::TunePhase::Confirming)
    batch += " (the best " + std::to_string(p.batch_size) + " measured again)";
  return "measurer tune: " + batch + ": " + trials_text(p) + " trials, " +
         gflops_text(p.best_gflops) + ", " + errors_text(p.errors) + ", elapsed " +
         format_duration(elapsed) + ", ETA " + format_duration(estimate_eta(p, elapsed));
}

double ProgressDisplay::steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

ProgressDisplay::Mode ProgressDisplay::stderr_mode() {
  const char* term = std::getenv("TERM");
  bool dumb = term != nullptr && std::strcmp(term, "dumb") == 0;
  return ::isatty(STDERR_FILENO) && !dumb ? Mode::Terminal : Mode::Plain;
}

int ProgressDisplay::stderr_width() {
  winsize ws{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

ProgressDisplay::ProgressDisplay(std::ostream& out, Mode mode, int width, Clock clock,
                                 std::chrono::milliseconds tick)
    : out_(out), mode_(mode), width_(width), clock_(std::move(clock)), tick_(tick) {
  start_ = clock_();
  if (mode_ == Mode::Terminal && tick_.count() > 0) ticker_ = std::thread([this] { tick_loop(); });
}

ProgressDisplay::~ProgressDisplay() {
  finish();
}

void ProgressDisplay::draw_locked() {
  if (mode_ != Mode::Terminal || finished_) return;
  out_ << "\r" << progress_bar_line(last_, clock_() - start_, width_) << "\033[K" << std::flush;
  drawn_ = true;
}

void ProgressDisplay::tick_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!finished_) {
    if (drawn_) draw_locked();
    wake_.wait_for(lock, tick_);
  }
}

void ProgressDisplay::on_phase(const tune::TuneProgress& p) {
  std::lock_guard<std::mutex> lock(mutex_);
  last_ = p;
  draw_locked();
}

void ProgressDisplay::on_result(const tune::TuneProgress& p) {
  std::lock_guard<std::mutex> lock(mutex_);
  last_ = p;
  draw_locked();
}

void ProgressDisplay::on_batch_done(const tune::TuneProgress& p) {
  std::lock_guard<std::mutex> lock(mutex_);
  last_ = p;
  if (mode_ == Mode::Plain && !finished_)
    out_ << progress_plain_line(p, clock_() - start_) << "\n" << std::flush;
  else
    draw_locked();
}

void ProgressDisplay::finish() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (finished_) return;
    finished_ = true;
    if (drawn_) out_ << "\n" << std::flush;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

}  // namespace mrd::cli
