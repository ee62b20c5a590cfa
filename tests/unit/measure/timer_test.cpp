// TVM's timing rules, driven by a fake clock: each call advances it by a fixed amount.
#include <catch2/catch.hpp>

#include "common/measure/timer.h"

using namespace mrd::measure;

namespace {

class FakeClock : public Clock {
 public:
  double t = 1000.0;
  std::vector<double> sleeps;
  double now() override { return t; }
  void sleep(double s) override {
    sleeps.push_back(s);
    t += s;
  }
};

}  // namespace

TEST_CASE("timer: number grows by TVM's rule until a repeat lasts min_repeat_ms") {
  FakeClock clock;
  int calls = 0;
  auto call = [&] { ++calls, clock.t += 0.001; };  // 1 ms per call
  TimerConfig cfg;
  cfg.number = 3;
  cfg.repeat = 2;
  cfg.min_repeat_ms = 100;
  TimerOutcome out = time_calls(call, nullptr, cfg, clock);
  // 3 calls = 3 ms < 100 -> number = max(100 / 1 + 1, 4.854) = 101 -> 101 ms >= 100.
  CHECK(out.final_number == 101);
  REQUIRE(out.costs.size() == 2);
  CHECK(out.costs[0] == Approx(0.001));
  CHECK(out.costs[1] == Approx(0.001));
  CHECK(calls == 1 + 3 + 101 + 101);  // warm-up, short try, two repeats at the grown number
  CHECK_FALSE(out.timed_out);
}

TEST_CASE("timer: the golden-ratio growth wins when it is larger") {
  FakeClock clock;
  double per_call = 0.040;  // 40 ms: 100 / 40 + 1 = 3.5 < 1.618 * 3 = 4.854
  auto call = [&] { clock.t += per_call; };
  TimerConfig cfg;
  cfg.number = 3;
  cfg.repeat = 1;
  cfg.min_repeat_ms = 200;
  TimerOutcome out = time_calls(call, nullptr, cfg, clock);
  // 3 x 40 = 120 ms < 200: max(200 / 40 + 1, 4.854) = 6 -> 240 ms >= 200.
  CHECK(out.final_number == 6);
  per_call = 0.010;
  TimerOutcome out2 = time_calls(call, nullptr, cfg, clock);
  // 30 ms: max(21, 4.854) = 21 -> 210 ms.
  CHECK(out2.final_number == 21);
  cfg.min_repeat_ms = 100;
  per_call = 0.030;
  cfg.number = 3;
  TimerOutcome out3 = time_calls(call, nullptr, cfg, clock);
  // 90 ms: max(100 / 30 + 1 = 4.33, 4.854) = 4.854 -> 4; 120 ms >= 100.
  CHECK(out3.final_number == 4);
}

TEST_CASE("timer: cache flush forces number 1 and runs before every repeat") {
  FakeClock clock;
  int calls = 0, flushes = 0;
  TimerConfig cfg;
  cfg.number = 10;
  cfg.repeat = 3;
  cfg.min_repeat_ms = 100;
  cfg.cache_flush = true;
  TimerOutcome out = time_calls([&] { ++calls, clock.t += 0.002; }, [&] { ++flushes; }, cfg, clock);
  CHECK(out.final_number == 1);
  CHECK(flushes == 3);
  CHECK(calls == 1 + 3);
  REQUIRE(out.costs.size() == 3);
  for (double c : out.costs) CHECK(c == Approx(0.002));
}

TEST_CASE("timer: cooldown is slept after each repeat") {
  FakeClock clock;
  TimerConfig cfg;
  cfg.number = 1;
  cfg.repeat = 3;
  cfg.min_repeat_ms = 0;
  cfg.cooldown_interval = 0.5;
  time_calls([&] { clock.t += 0.01; }, nullptr, cfg, clock);
  CHECK(clock.sleeps == std::vector<double>{0.5, 0.5, 0.5});
}

TEST_CASE("timer: a passed deadline stops before the next batch") {
  FakeClock clock;
  TimerConfig cfg;
  cfg.number = 1;
  cfg.repeat = 5;
  cfg.min_repeat_ms = 0;
  cfg.deadline = clock.t + 2.5;
  TimerOutcome out = time_calls([&] { clock.t += 1.0; }, nullptr, cfg, clock);
  CHECK(out.timed_out);
  CHECK(out.costs.size() == 2);  // warm-up ends at +1, repeats end at +2 and +3 > deadline
}

TEST_CASE("timer: a stop flag ends timing after the call in progress") {
  FakeClock clock;
  std::atomic<bool> stop{false};
  int calls = 0;
  TimerConfig cfg;
  cfg.number = 10;
  cfg.repeat = 3;
  cfg.min_repeat_ms = 0;
  cfg.stop = &stop;
  TimerOutcome out = time_calls([&] { clock.t += 0.001; if (++calls == 5) stop = true; }, nullptr, cfg, clock);
  CHECK(out.timed_out);
  CHECK(calls == 5);  // warm-up and four timed calls; the fifth set the flag
  CHECK(out.costs.empty());
}

TEST_CASE("timer: calibrated from the warm-up, the first repeat already lasts min_repeat_ms") {
  for (double per_call : {0.001, 0.020, 0.030, 0.150}) {
    INFO("per call " << per_call);
    FakeClock clock;
    int calls = 0;
    auto call = [&] { ++calls, clock.t += per_call; };
    TimerConfig cfg;
    cfg.number = 3;
    cfg.repeat = 2;
    cfg.min_repeat_ms = 100;
    TimerOutcome plain = time_calls(call, nullptr, cfg, clock);
    int plain_calls = calls;
    calls = 0;
    cfg.calibrate_from_warmup = true;
    TimerOutcome calibrated = time_calls(call, nullptr, cfg, clock);
    // The same cost, no repeat redone, never fewer calls per repeat than asked.
    REQUIRE(calibrated.costs.size() == 2);
    CHECK(calibrated.costs[0] == Approx(per_call));
    CHECK(calibrated.costs[0] == Approx(plain.costs[0]));
    CHECK(calibrated.discarded_calls == 0);
    CHECK(calibrated.final_number >= 3);
    CHECK(calibrated.final_number * per_call * 1e3 >= 100 - 1e-9);
    CHECK(calls == 1 + 2 * calibrated.final_number);
    CHECK(calls <= plain_calls);
    // TVM's rule throws the short first attempt away whenever number calls are under 100 ms.
    CHECK(plain.discarded_calls == (3 * per_call < 0.1 ? 3 : 0));
  }
}

TEST_CASE("timer: calibrated, a repeat that falls short is extended, not redone") {
  // A cold first call of 20 ms, then 10 ms calls: calibration asks for 5 calls (50 ms).
  FakeClock clock;
  int calls = 0;
  auto call = [&] { clock.t += calls++ == 0 ? 0.020 : 0.010; };
  TimerConfig cfg;
  cfg.number = 3;
  cfg.repeat = 2;
  cfg.min_repeat_ms = 100;
  cfg.calibrate_from_warmup = true;
  TimerOutcome out = time_calls(call, nullptr, cfg, clock);
  REQUIRE(out.costs.size() == 2);
  CHECK(out.costs[0] == Approx(0.010));
  CHECK(out.costs[1] == Approx(0.010));
  CHECK(out.discarded_calls == 0);
  // 5 calls, then the 6 (5.5 rounded up) that make it at least 100 ms; the second repeat
  // starts at the extended number.
  CHECK(out.final_number == 11);
  CHECK(calls == 1 + 2 * 11);
}

TEST_CASE("timer: calibration reports the calls TVM's growth rule would have thrown away") {
  FakeClock clock;
  auto call = [&] { clock.t += 0.010; };  // 10 ms: TVM times 3 calls (30 ms), then 11
  TimerConfig cfg;
  cfg.number = 3;
  cfg.repeat = 1;
  cfg.min_repeat_ms = 100;
  TimerOutcome plain = time_calls(call, nullptr, cfg, clock);
  cfg.calibrate_from_warmup = true;
  TimerOutcome calibrated = time_calls(call, nullptr, cfg, clock);
  CHECK(plain.discarded_calls == 3);
  CHECK(calibrated.calls_saved == plain.discarded_calls);
  CHECK(calibrated.discarded_calls == 0);
}

TEST_CASE("timer: a warm-up slower than give_up_after_warmup ends the timing with its cost") {
  FakeClock clock;
  int calls = 0;
  auto call = [&] { ++calls, clock.t += 0.050; };
  TimerConfig cfg;
  cfg.number = 3;
  cfg.repeat = 3;
  cfg.min_repeat_ms = 100;
  cfg.calibrate_from_warmup = true;
  cfg.give_up_after_warmup = 0.040;
  TimerOutcome skipped = time_calls(call, nullptr, cfg, clock);
  CHECK(skipped.skipped);
  CHECK(calls == 1);
  REQUIRE(skipped.costs.size() == 1);
  CHECK(skipped.costs[0] == Approx(0.050));
  CHECK_FALSE(skipped.timed_out);

  calls = 0;
  cfg.give_up_after_warmup = 0.060;  // faster than the limit: timed as usual
  TimerOutcome timed = time_calls(call, nullptr, cfg, clock);
  CHECK_FALSE(timed.skipped);
  CHECK(timed.costs.size() == 3);
  CHECK(calls > 1);
}

TEST_CASE("timer: the warm-up and the timed repeats after it are reported apart") {
  FakeClock clock;
  auto call = [&] { clock.t += 0.002; };  // 2 ms per call
  TimerConfig cfg;
  cfg.number = 3;
  cfg.repeat = 2;
  cfg.min_repeat_ms = 0;
  cfg.cooldown_interval = 0.5;
  TimerOutcome out = time_calls(call, nullptr, cfg, clock);
  CHECK(out.warmup_seconds == Approx(0.002));
  CHECK(out.timed_seconds == Approx(2 * (3 * 0.002 + 0.5)));  // two repeats, each with its cooldown
  cfg.give_up_after_warmup = 0.001;  // skipped after the warm-up: nothing timed after it
  TimerOutcome skipped = time_calls(call, nullptr, cfg, clock);
  CHECK(skipped.skipped);
  CHECK(skipped.timed_seconds == 0);
}
