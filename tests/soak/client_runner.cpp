#include "tests/soak/client_runner.h"

#include "common/proto/codec.h"
#include "common/util/error.h"

namespace mrd::soak {
namespace {

using measure::MeasureErrorNo;

/// Thrown from a result callback to abandon the request mid-stream.
struct CutNow {};

std::string describe_request(const std::vector<PlannedRequest>& plan, size_t index) {
  return str_cat("request ", index, " (", plan[index].label, ", ", plan[index].states.size(),
                 " inputs)");
}

}  // namespace

ClientRunner::ClientRunner(std::string socket_path, const std::vector<PlannedRequest>& plan)
    : socket_path_(std::move(socket_path)), plan_(plan) {}

ClientRunner::~ClientRunner() {
  for (auto& t : threads_) {
    if (!t.joinable()) continue;
    if (abandoned_)
      t.detach();  // stuck in a read from the daemon; the process is about to end
    else
      t.join();
  }
}

void ClientRunner::start(int clients, std::chrono::steady_clock::time_point submit_deadline) {
  std::lock_guard<std::mutex> lock(mu_);
  current_.assign(static_cast<size_t>(clients), Current{});
  running_threads_ = static_cast<size_t>(clients);
  for (int i = 0; i < clients; ++i)
    threads_.emplace_back([this, i, submit_deadline] { client_loop(i, submit_deadline); });
}

void ClientRunner::client_loop(int id, std::chrono::steady_clock::time_point submit_deadline) {
  std::unique_ptr<client::Client> conn;
  for (;;) {
    size_t index = next_++;
    if (index >= plan_.size()) break;
    if (std::chrono::steady_clock::now() >= submit_deadline) {
      std::lock_guard<std::mutex> lock(mu_);
      tally_.unsent += plan_[index].states.size();
      continue;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      current_[id] = Current{&plan_[index], index, 0};
    }
    run_request(id, index, conn);
    std::lock_guard<std::mutex> lock(mu_);
    current_[id] = Current{};
  }
  conn.reset();
  std::lock_guard<std::mutex> lock(mu_);
  --running_threads_;
  cv_.notify_all();
}

void ClientRunner::run_request(int id, size_t index, std::unique_ptr<client::Client>& conn) {
  const PlannedRequest& req = plan_[index];
  const size_t n = req.states.size();
  auto lose = [&](size_t got, const std::string& why) {
    std::lock_guard<std::mutex> lock(mu_);
    if (abandoned_) return;
    tally_.lost += n - got;
    tally_.problems.push_back(
        str_cat("lost: ", describe_request(plan_, index), " inputs ", got, "..", n - 1, ": ", why));
  };
  if (!conn) {
    try {
      conn = std::make_unique<client::Client>(socket_path_, str_cat("soak-", id));
    } catch (const std::exception& e) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        tally_.submitted += n;
      }
      lose(0, str_cat("cannot connect: ", e.what()));
      return;
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    tally_.submitted += n;
  }
  size_t got = 0;
  try {
    if (req.cut_after == 0) {
      // Abandoned at once: the request is sent, the connection closed before any result.
      proto::MeasureRequest m;
      m.request_id = 1u << 30;
      m.task = measure::task_to_binary(req.task);
      m.states = req.states;
      m.options = req.options;
      conn->send_bytes(proto::encode(m));
      throw CutNow{};
    }
    auto done = conn->measure(req.task, req.states, req.options,
                              [&](uint32_t input, const measure::MeasureResult& r) {
                                record_result(id, index, input, r);
                                if (++got == req.cut_after) throw CutNow{};
                              });
    if (done.count != n) lose(got, str_cat("request done with ", done.count, " results"));
  } catch (const CutNow&) {
    conn.reset();
    std::lock_guard<std::mutex> lock(mu_);
    if (!abandoned_) tally_.cut += n - got;
  } catch (const std::exception& e) {
    conn.reset();
    lose(got, str_cat("after ", got, " of ", n, " results: ", e.what()));
  }
}

void ClientRunner::record_result(int id, size_t index, uint32_t input,
                                 const measure::MeasureResult& r) {
  const PlannedRequest& req = plan_[index];
  std::lock_guard<std::mutex> lock(mu_);
  if (abandoned_) return;
  ++tally_.received;
  ++current_[id].results;
  MeasureErrorNo expected =
      input < req.expected.size() ? req.expected[input] : MeasureErrorNo::UnknownError;
  std::string where = str_cat(describe_request(plan_, index), " input ", input);
  if (input >= req.states.size()) {
    ++tally_.wrong;
    tally_.problems.push_back(str_cat("wrong: ", where, ": a result for an input never sent"));
  } else if (r.error_no == expected) {
    if (expected == MeasureErrorNo::NoError && r.costs.size() != size_t(req.options.repeat)) {
      ++tally_.wrong;
      tally_.problems.push_back(str_cat("wrong: ", where, ": NO_ERROR with ", r.costs.size(),
                                        " costs for ", req.options.repeat, " repeats"));
    }
  } else if ((r.error_no == MeasureErrorNo::CompileHost ||
              r.error_no == MeasureErrorNo::RuntimeDevice) &&
             r.error_msg.find("signal 9") != std::string::npos) {
    ++tally_.killed;
    tally_.killed_details.push_back(str_cat(where, ": expected ", measure::error_name(expected),
                                            ", got ", measure::error_name(r.error_no), ": ",
                                            r.error_msg));
  } else {
    ++tally_.wrong;
    tally_.problems.push_back(str_cat("wrong code: ", where, " state ", req.states[input],
                                      ": expected ", measure::error_name(expected), ", got ",
                                      measure::error_name(r.error_no), ": ", r.error_msg));
  }
  ++received_;
  cv_.notify_all();
}

bool ClientRunner::wait(std::chrono::steady_clock::time_point until) {
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (!cv_.wait_until(lock, until, [&] { return running_threads_ == 0; })) {
      for (const Current& c : current_) {
        if (!c.request) continue;
        size_t n = c.request->states.size();
        tally_.lost += n - c.results;
        tally_.problems.push_back(str_cat("lost: ", describe_request(plan_, c.index), " inputs ",
                                          c.results, "..", n - 1,
                                          ": no result within the drain time"));
      }
      abandoned_ = true;
      return false;
    }
  }
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  return true;
}

void ClientRunner::wait_received(uint64_t n, const std::atomic<bool>& stop) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return received_ >= n || running_threads_ == 0 || stop; });
}

void ClientRunner::wake() {
  std::lock_guard<std::mutex> lock(mu_);
  cv_.notify_all();
}

Tally ClientRunner::tally() {
  std::lock_guard<std::mutex> lock(mu_);
  return tally_;
}

}  // namespace mrd::soak
