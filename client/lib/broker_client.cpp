#include "client/lib/broker_client.h"

#include <chrono>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "client/lib/client.h"
#include "common/broker/broker_job.h"
#include "common/broker/broker_keys.h"
#include "common/broker/device_key.h"
#include "common/proto/protocol_error.h"
#include "common/util/sha256.h"

namespace mrd::client {

using broker::BrokerError;
using broker::RedisReply;

namespace {

std::string random_id() {
  std::random_device rd;
  std::uniform_int_distribution<uint64_t> d;
  uint64_t v = d(rd) ^ (uint64_t(rd()) << 32);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 16; ++i) out += hex[(v >> (4 * i)) & 15];
  return out;
}

/// Task bytes live as long as a day without a request refreshing them.
constexpr const char* kTaskLifetime = "86400";

}  // namespace

struct BrokerClient::Request {
  std::string key;
  std::string task_hash;
  const std::string* task_bytes = nullptr;
  const std::vector<std::string>* states = nullptr;
  measure::MeasureOptions options;
  std::vector<std::optional<std::pair<measure::MeasureResult, std::string>>> results;
  std::set<uint32_t> in_flight;    ///< in the job stream, no result yet
  std::set<uint32_t> unconfirmed;  ///< sent, the broker's answer not seen (connection broke)
  uint32_t next_send = 0;
  uint32_t next_emit = 0;
  bool waiting(uint32_t i) const { return in_flight.count(i) || unconfirmed.count(i); }
};

BrokerClient::BrokerClient(BrokerOptions options)
    : options_(std::move(options)), requester_(random_id()) {
  if (options_.device_key.empty()) options_.device_key = broker::local_device_key();
  if (!broker::valid_name(options_.device_key))
    throw ConnectionError("device key '" + options_.device_key +
                          "' is not 1 to 128 characters of A-Z a-z 0-9 . _ -");
  try {
    conn_ = std::make_unique<broker::RedisConnection>(options_.endpoint);
    run_id_ = conn_->run_id();
  } catch (const BrokerError& e) {
    throw ConnectionError(e.what());
  }
}

BrokerClient::~BrokerClient() = default;

std::vector<broker::NodeInfo> BrokerClient::nodes() {
  try {
    if (!conn_) reconnect();
    return broker::read_nodes(*conn_, options_.device_key);
  } catch (const BrokerError& e) {
    conn_.reset();
    throw ConnectionError(e.what());
  }
}

void BrokerClient::reconnect() {
  conn_.reset();
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double>(options_.reconnect_timeout);
  auto backoff = std::chrono::milliseconds(50);
  std::string last;
  for (;;) {
    try {
      auto c = std::make_unique<broker::RedisConnection>(options_.endpoint);
      run_id_ = c->run_id();
      conn_ = std::move(c);
      return;
    } catch (const BrokerError& e) {
      last = e.what();
    }
    if (std::chrono::steady_clock::now() + backoff > deadline)
      throw ConnectionError(last + " (gave up after " +
                            std::to_string(static_cast<int>(options_.reconnect_timeout)) + " s)");
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, std::chrono::milliseconds(2000));
  }
}

void BrokerClient::put_task(const std::string& hash, const std::string& bytes) {
  RedisReply r = conn_->command({"SET", broker::task_key(hash), bytes, "EX", kTaskLifetime});
  if (r.is_error()) throw ConnectionError("broker refused the task: " + r.str);
}

void BrokerClient::send_jobs(Request& r, const std::vector<uint32_t>& indices) {
  if (indices.empty()) return;
  std::vector<broker::RedisArgs> cmds;
  for (uint32_t i : indices) {
    r.unconfirmed.insert(i);
    broker::JobEntry job{r.key, broker::results_stream(requester_), i, r.task_hash,
                         (*r.states)[i], r.options};
    broker::RedisArgs xadd{"XADD", broker::jobs_stream(options_.device_key), "*"};
    auto f = broker::job_fields(job);
    xadd.insert(xadd.end(), f.begin(), f.end());
    cmds.push_back(std::move(xadd));
  }
  auto replies = conn_->pipeline(cmds);
  for (size_t k = 0; k < replies.size(); ++k)
    if (replies[k].is_error()) throw ConnectionError("broker refused a job: " + replies[k].str);
  for (uint32_t i : indices) {
    r.unconfirmed.erase(i);
    r.in_flight.insert(i);
  }
}

proto::RequestDone BrokerClient::measure(const measure::Task& task,
                                         const std::vector<std::string>& states,
                                         const measure::MeasureOptions& options,
                                         const OnResult& on_result) {
  return measure(measure::task_to_binary(task), states, options, on_result);
}

proto::RequestDone BrokerClient::measure(const std::string& task_bytes,
                                         const std::vector<std::string>& states,
                                         const measure::MeasureOptions& options,
                                         const OnResult& on_result) {
  cancel_requested_ = false;
  measuring_ = true;
  struct Reset {
    std::atomic<bool>& flag;
    ~Reset() { flag = false; }
  } reset{measuring_};

  Request r;
  r.key = requester_ + ":" + std::to_string(next_request_++);
  r.task_hash = sha256_hex(task_bytes);
  r.task_bytes = &task_bytes;
  r.states = &states;
  r.options = options;
  r.results.resize(states.size());
  proto::RequestDone done;
  done.count = static_cast<uint32_t>(states.size());
  if (states.empty()) return done;

  bool alive = false;
  for (const auto& n : nodes()) alive = alive || n.alive;
  if (!alive)
    throw ConnectionError("no live node serves device key " + options_.device_key +
                          " on the broker " + options_.endpoint.text() +
                          " (measurer --broker URL status lists the keys and nodes)");

  const std::string results = broker::results_stream(requester_);
  broker::EntryLimits limits;
  limits.limits.max_states = std::max<uint64_t>(limits.limits.max_states, states.size());
  bool task_put = false;
  const auto n = static_cast<uint32_t>(states.size());
  while (r.next_emit < n) {
    try {
      if (!conn_) {
        std::string before = run_id_;
        reconnect();
        // A restarted broker lost the task and the jobs; one that stayed up kept them, but
        // jobs whose XADD was not confirmed may be missing. A result that comes twice is
        // dropped below.
        task_put = false;
        std::vector<uint32_t> again(r.unconfirmed.begin(), r.unconfirmed.end());
        if (run_id_ != before) {
          again.insert(again.end(), r.in_flight.begin(), r.in_flight.end());
          last_result_id_ = "0-0";
        }
        put_task(r.task_hash, task_bytes);
        task_put = true;
        r.unconfirmed.clear();
        for (uint32_t i : again) r.in_flight.erase(i);
        send_jobs(r, again);
      }
      if (!task_put) {
        put_task(r.task_hash, task_bytes);
        task_put = true;
      }
      if (cancel_requested_) {
        for (; r.next_send < n; ++r.next_send) {
          measure::MeasureResult c;
          c.error_no = measure::MeasureErrorNo::UnknownError;
          c.error_msg = kCancelledMessage;
          r.results[r.next_send] = std::make_pair(std::move(c), std::string());
        }
      } else {
        std::vector<uint32_t> batch;
        while (r.next_send < n && r.in_flight.size() + r.unconfirmed.size() + batch.size() <
                                      std::max<size_t>(1, options_.window))
          batch.push_back(r.next_send++);
        send_jobs(r, batch);
      }
      for (; r.next_emit < n && r.results[r.next_emit]; ++r.next_emit) {
        auto& [res, node] = *r.results[r.next_emit];
        done.errors += res.error_no != measure::MeasureErrorNo::NoError;
        if (on_result) on_result(r.next_emit, res, node);
      }
      if (r.next_emit == n) break;
      RedisReply read = conn_->command(
          {"XREAD", "COUNT", "256", "BLOCK", "250", "STREAMS", results, last_result_id_});
      if (read.is_error()) throw BrokerError("XREAD: " + read.str);
      if (read.is_nil()) continue;
      for (const auto& e : broker::stream_entries(read.at(0).at(1))) {
        last_result_id_ = e.id;
        if (!e.fields) continue;
        try {
          broker::ResultEntry res = broker::parse_result(*e.fields, limits);
          if (res.request != r.key || res.index >= n || !r.waiting(res.index) ||
              r.results[res.index])
            continue;  // another request's, or a second answer
          r.in_flight.erase(res.index);
          r.unconfirmed.erase(res.index);
          r.results[res.index] = std::make_pair(std::move(res.result), std::move(res.node));
        } catch (const proto::ProtocolError&) {
          continue;  // not a result this client can read; its job is answered again or not
        }
      }
    } catch (const BrokerError&) {
      conn_.reset();
    }
  }
  if (conn_) {
    try {
      conn_->command({"DEL", results});
    } catch (const BrokerError&) {
      conn_.reset();
    }
  }
  return done;
}

bool BrokerClient::cancel() noexcept {
  if (!measuring_) return false;
  cancel_requested_ = true;
  return true;
}

}  // namespace mrd::client
