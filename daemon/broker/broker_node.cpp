#include "daemon/broker/broker_node.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>

#include "common/broker/broker_keys.h"
#include "common/measure/measure_types.h"
#include "common/proto/codec.h"
#include "common/proto/protocol_error.h"
#include "common/util/sha256.h"

namespace mrd::daemon {

using broker::BrokerError;
using broker::RedisConnection;
using broker::RedisReply;
using namespace std::chrono_literals;

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string host_name() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return host;
}

constexpr size_t kTaskCacheSize = 16;
constexpr std::chrono::milliseconds kBackoffMin{50}, kBackoffMax{2000};
constexpr std::chrono::milliseconds kLoadPeriod{50};
/// How often a node forgets the consumers of nodes gone for kForgetConsumerMs.
constexpr std::chrono::minutes kPrunePeriod{10};
constexpr long long kForgetConsumerMs = 3600 * 1000;
/// Result entries kept per result stream (approximately) and how long an idle one lives.
constexpr const char* kResultStreamMax = "100000";
constexpr const char* kKeyLifetime = "86400";

}  // namespace

BrokerNode::BrokerNode(boost::asio::io_context& io, NodeConfig config, NodeContext ctx)
    : io_(io),
      config_(std::move(config)),
      ctx_(ctx),
      stream_(broker::jobs_stream(config_.device_key)),
      heartbeat_period_(
          std::clamp<int64_t>(static_cast<int64_t>(config_.claim_idle * 250), 50, 2000)),
      load_timer_(io) {
  limits_.limits.max_states = ctx_.max_states;
  limits_.max_body = ctx_.max_body;
}

BrokerNode::~BrokerNode() {
  stop();
}

void BrokerNode::start() {
  started_ = now_seconds();
  spdlog::info("node {}: serving device key {} on broker {} (takes over jobs silent for {} s, "
               "answers a job delivered more than {} times with an error)",
               config_.node_name, config_.device_key, config_.endpoint.text(), config_.claim_idle,
               config_.max_deliveries);
  // Joins before the daemon says it is ready, when the broker answers at once: then a client
  // that sees the daemon ready also sees the node.
  try {
    RedisConnection c(config_.endpoint, 2);
    ensure_group(c);
    heartbeat(c, false);
    spdlog::info("node {}: joined the consumer group of {}", config_.node_name, stream_);
  } catch (const BrokerError& e) {
    spdlog::warn("node {}: {}; local clients are served, joining the broker in the background",
                 config_.node_name, e.what());
  }
  boost::asio::post(io_, [this] { watch_load(); });
  reader_ = std::thread([this] { read_loop(); });
  writer_ = std::thread([this] { write_loop(); });
}

void BrokerNode::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
    if (reader_conn_) reader_conn_->shutdown();  // it may be blocked in XREADGROUP
  }
  loop_stopped_ = true;
  reader_cv_.notify_all();
  writer_cv_.notify_all();
  if (reader_.joinable()) reader_.join();
  if (writer_.joinable()) writer_.join();
  size_t left;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    left = taken_;
  }
  if (left)
    spdlog::info("node {}: stopped with {} jobs unanswered; other nodes take them over after "
                 "{} s",
                 config_.node_name, left, config_.claim_idle);
}

void BrokerNode::stop_taking() {
  loop_stopped_ = true;
  load_timer_.cancel();
}

void BrokerNode::watch_load() {
  if (loop_stopped_) return;
  auto st = ctx_.dispatcher->stats();
  size_t all = st.queued + st.in_flight;
  size_t local = all > on_loop_ ? all - on_loop_ : 0;
  bool freed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    freed = local < local_load_;
    local_load_ = local;
  }
  if (freed) reader_cv_.notify_all();
  load_timer_.expires_after(kLoadPeriod);
  load_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) watch_load();
  });
}

bool BrokerNode::pause(std::chrono::milliseconds delay) {
  std::unique_lock<std::mutex> lock(mutex_);
  reader_cv_.wait_for(lock, delay, [this] { return stopping_; });
  return !stopping_;
}

std::unique_ptr<RedisConnection> BrokerNode::connect() {
  return std::make_unique<RedisConnection>(config_.endpoint,
                                           std::max(10.0, config_.claim_idle));
}

void BrokerNode::ensure_group(RedisConnection& c) {
  RedisReply r = c.command({"XGROUP", "CREATE", stream_, broker::kGroup, "0", "MKSTREAM"});
  if (r.is_error() && r.str.find("BUSYGROUP") == std::string::npos)
    throw BrokerError("cannot create the consumer group of " + stream_ + ": " + r.str);
}

void BrokerNode::read_loop() {
  std::unique_ptr<RedisConnection> conn;
  auto backoff = kBackoffMin;
  bool lost = false;  // warned about the current outage
  const auto block_ms = std::to_string(std::clamp<int64_t>(heartbeat_period_.count(), 50, 1000));
  const auto claim_ms = std::to_string(static_cast<int64_t>(config_.claim_idle * 1000));
  for (;;) {
    size_t free = 0;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      reader_cv_.wait(lock,
                      [this] { return stopping_ || taken_ + local_load_ < ctx_.workers; });
      if (stopping_) break;
      free = ctx_.workers - taken_ - local_load_;
    }
    try {
      if (!conn) {
        conn = connect();
        ensure_group(*conn);
        std::lock_guard<std::mutex> lock(mutex_);
        if (stopping_) break;
        reader_conn_ = conn.get();
      }
      if (lost) spdlog::info("node {}: broker {} reachable again", config_.node_name,
                             config_.endpoint.text());
      lost = false;
      backoff = kBackoffMin;
      // Jobs of nodes silent for claim_idle first: they have waited longest.
      RedisReply claimed = conn->command({"XAUTOCLAIM", stream_, broker::kGroup, config_.node_name,
                                          claim_ms, "0-0", "COUNT", std::to_string(free)});
      if (claimed.is_error()) {
        if (claimed.str.find("NOGROUP") == std::string::npos)
          throw BrokerError("XAUTOCLAIM refused (Redis 6.2 or later is needed): " + claimed.str);
        ensure_group(*conn);  // the broker lost its data (a restart without persistence)
        continue;
      }
      auto entries = broker::stream_entries(claimed.at(1));
      bool was_claimed = !entries.empty();
      RedisReply read;
      if (entries.empty()) {
        read = conn->command({"XREADGROUP", "GROUP", broker::kGroup, config_.node_name, "COUNT",
                              std::to_string(free), "BLOCK", block_ms, "STREAMS", stream_, ">"});
        if (read.is_error()) {
          if (read.str.find("NOGROUP") == std::string::npos)
            throw BrokerError("XREADGROUP refused: " + read.str);
          ensure_group(*conn);
          continue;
        }
        if (read.is_nil()) continue;
        entries = broker::stream_entries(read.at(0).at(1));
      }
      for (const auto& e : entries) take(*conn, e, was_claimed);
    } catch (const BrokerError& e) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        reader_conn_ = nullptr;
        if (stopping_) break;
      }
      conn.reset();
      if (!lost)
        spdlog::warn("node {}: {}; local clients are served as before, retrying with back-off",
                     config_.node_name, e.what());
      lost = true;
      if (!pause(backoff)) break;
      backoff = std::min(backoff * 2, kBackoffMax);
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  reader_conn_ = nullptr;
}

void BrokerNode::take(RedisConnection& c, const broker::StreamEntry& e, bool claimed) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++taken_;
    held_ids_.insert(e.id);
  }
  if (!e.fields) {  // deleted meanwhile: nothing to answer
    answer({e.id, "", std::nullopt});
    return;
  }
  broker::JobEntry job;
  try {
    job = broker::parse_job_route(*e.fields, limits_);
  } catch (const proto::ProtocolError& err) {
    spdlog::warn("node {}: job {} dropped, it says not where to answer: {}", config_.node_name,
                 e.id, err.what());
    answer({e.id, "", std::nullopt});
    return;
  }
  if (claimed) {
    RedisReply p = c.command({"XPENDING", stream_, broker::kGroup, e.id, e.id, "1"});
    long long deliveries = p.at(0).at(3).integer;
    spdlog::info("node {}: took over job {} ({} index {}) from a silent node, delivery {}",
                 config_.node_name, e.id, job.request, job.index, deliveries);
    if (deliveries > static_cast<long long>(config_.max_deliveries)) {
      spdlog::warn("node {}: job {} ({} index {}) was delivered {} times without an answer: "
                   "answered with an error, not measured again",
                   config_.node_name, e.id, job.request, job.index, deliveries);
      answer_error(e.id, job,
                   "not measured: delivered " + std::to_string(deliveries) +
                       " times and every node that took it ended before answering (more than "
                       "--broker-max-deliveries " +
                       std::to_string(config_.max_deliveries) + ")");
      return;
    }
  }
  try {
    broker::parse_job_body(*e.fields, limits_, job);
  } catch (const proto::ProtocolError& err) {
    spdlog::warn("node {}: job {} is malformed: {}", config_.node_name, e.id, err.what());
    answer_error(e.id, job, std::string("malformed job: ") + err.what());
    return;
  }
  std::string error;
  auto task = fetch_task(c, job.task_hash, error);
  if (!task) {
    answer_error(e.id, job, error);
    return;
  }
  boost::asio::post(io_, [this, id = e.id, job = std::move(job), task]() mutable {
    run_on_loop(std::move(id), std::move(job), std::move(task));
  });
}

std::shared_ptr<const std::string> BrokerNode::fetch_task(RedisConnection& c,
                                                           const std::string& hash,
                                                           std::string& error) {
  if (auto it = task_cache_.find(hash); it != task_cache_.end()) return it->second;
  RedisReply r = c.command({"GET", broker::task_key(hash)});
  if (r.type != RedisReply::Type::String) {
    error = "the task bytes " + broker::task_key(hash) + " are gone from the broker";
    return nullptr;
  }
  if (r.str.size() > ctx_.max_body) {
    error = "task of " + std::to_string(r.str.size()) + " bytes exceeds the node's --max-body";
    return nullptr;
  }
  if (sha256_hex(r.str) != hash) {
    error = "the task bytes at " + broker::task_key(hash) + " do not match their hash";
    return nullptr;
  }
  if (task_cache_.size() >= kTaskCacheSize) task_cache_.erase(task_cache_.begin());
  auto bytes = std::make_shared<const std::string>(std::move(r.str));
  task_cache_[hash] = bytes;
  return bytes;
}

void BrokerNode::run_on_loop(std::string entry_id, broker::JobEntry job,
                             std::shared_ptr<const std::string> task) {
  if (loop_stopped_) return;  // left to other nodes
  std::string bad = proto::check_options(job.options);
  if (bad.empty()) bad = check_timing_caps(job.options, ctx_.caps);
  if (bad.empty() && job.state.find('\0') != std::string::npos) bad = "state contains a NUL byte";
  if (!bad.empty()) {
    answer_error(entry_id, job, "invalid job: " + bad);
    return;
  }
  proto::MeasureRequest req;
  req.request_id = next_request_++;
  req.task = *task;
  req.states = {job.state};
  req.options = job.options;
  RequestSink sink;
  ++on_loop_;
  sink.on_result = [this, entry_id, route = job](uint32_t, const measure::MeasureResult& r) {
    --on_loop_;
    broker::ResultEntry res{route.request, route.index, config_.node_name, r};
    answer({entry_id, route.reply, std::move(res)});
  };
  ctx_.dispatcher->submit(kClientId, std::move(req), std::move(sink));
}

void BrokerNode::answer(Outgoing o) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    out_.push_back(std::move(o));
  }
  writer_cv_.notify_all();
}

void BrokerNode::answer_error(const std::string& entry_id, const broker::JobEntry& job,
                              const std::string& message) {
  measure::MeasureResult r;
  r.error_no = measure::MeasureErrorNo::UnknownError;
  r.error_msg = message;
  r.timestamp = now_seconds();
  answer({entry_id, job.reply, broker::ResultEntry{job.request, job.index, config_.node_name, r}});
}

void BrokerNode::write_result(RedisConnection& c, const Outgoing& o) {
  std::vector<broker::RedisArgs> cmds{{"MULTI"}};
  if (o.result) {
    broker::RedisArgs xadd{"XADD", o.reply, "MAXLEN", "~", kResultStreamMax, "*"};
    auto f = broker::result_fields(*o.result);
    xadd.insert(xadd.end(), f.begin(), f.end());
    cmds.push_back(std::move(xadd));
    cmds.push_back({"EXPIRE", o.reply, kKeyLifetime});
  }
  cmds.push_back({"XACK", stream_, broker::kGroup, o.entry_id});
  cmds.push_back({"XDEL", stream_, o.entry_id});
  {
    // The node's counters change with the result they count, in the same transaction.
    std::lock_guard<std::mutex> lock(mutex_);
    cmds.push_back({"HSET", broker::node_key(config_.device_key, config_.node_name), "measured",
                    std::to_string(measured_ + o.result.has_value()), "busy",
                    std::to_string(taken_ - 1)});
  }
  cmds.push_back({"EXEC"});
  auto replies = c.pipeline(cmds);
  if (replies.back().is_error() || replies.back().is_nil())
    throw BrokerError("result of job " + o.entry_id + " not written: " + replies.back().str);
}

void BrokerNode::heartbeat(RedisConnection& c, bool stopped) {
  std::string key = broker::node_key(config_.device_key, config_.node_name);
  std::vector<std::string> held;
  size_t busy;
  uint64_t measured;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    held.assign(held_ids_.begin(), held_ids_.end());
    busy = taken_;
    measured = measured_;
  }
  std::vector<broker::RedisArgs> cmds;
  cmds.push_back({"HSET", key, "host", host_name(), "pid", std::to_string(::getpid()), "workers",
                  std::to_string(ctx_.workers), "cores", std::to_string(ctx_.cores), "policy",
                  std::string(measure::timing_policy_name(ctx_.dispatcher->policy())), "busy",
                  std::to_string(busy), "measured", std::to_string(measured), "last_seen",
                  std::to_string(now_seconds()), "heartbeat",
                  std::to_string(stopped ? 0.0 : heartbeat_period_.count() / 1000.0), "started",
                  std::to_string(started_)});
  cmds.push_back({"EXPIRE", key, kKeyLifetime});
  cmds.push_back({"SADD", broker::nodes_set(config_.device_key), config_.node_name});
  cmds.push_back({"SADD", broker::kDevicesKey, config_.device_key});
  if (!held.empty() && !stopped) {
    // Renews the idle time of the jobs this node holds, without counting a delivery, so that
    // no other node takes them over while this one lives. Entries idle for less than half a
    // period were just claimed by another node (this one stalled past claim_idle): left to it.
    broker::RedisArgs claim{"XCLAIM", stream_, broker::kGroup, config_.node_name,
                            std::to_string(heartbeat_period_.count() / 2)};
    claim.insert(claim.end(), held.begin(), held.end());
    claim.push_back("JUSTID");
    cmds.push_back(std::move(claim));
  }
  c.pipeline(cmds);
}

void BrokerNode::forget_gone_consumers(RedisConnection& c) {
  RedisReply list = c.command({"XINFO", "CONSUMERS", stream_, broker::kGroup});
  for (const auto& consumer : list.elements) {
    std::string name;
    long long pending = -1, idle = 0;
    for (size_t i = 0; i + 1 < consumer.elements.size(); i += 2) {
      const std::string& k = consumer.elements[i].str;
      const RedisReply& v = consumer.elements[i + 1];
      if (k == "name") name = v.str;
      if (k == "pending") pending = v.integer;
      if (k == "idle") idle = v.integer;
    }
    // A live node reads at least every second; one silent for an hour holding no job is gone.
    if (name.empty() || name == config_.node_name || pending != 0 || idle < kForgetConsumerMs)
      continue;
    c.command({"XGROUP", "DELCONSUMER", stream_, broker::kGroup, name});
    spdlog::info("node {}: forgot consumer {} (silent for {} s, no job held)", config_.node_name,
                 name, idle / 1000);
  }
}

void BrokerNode::write_loop() {
  std::unique_ptr<RedisConnection> conn;
  auto backoff = kBackoffMin;
  auto next_beat = std::chrono::steady_clock::now();
  auto next_prune = next_beat + kPrunePeriod;
  for (;;) {
    bool stop;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      writer_cv_.wait_until(lock, next_beat, [this] { return stopping_ || !out_.empty(); });
      stop = stopping_;
    }
    try {
      if (!conn) conn = connect();
      backoff = kBackoffMin;
      if (stop || std::chrono::steady_clock::now() >= next_beat) {
        heartbeat(*conn, stop);
        next_beat = std::chrono::steady_clock::now() + heartbeat_period_;
      }
      if (std::chrono::steady_clock::now() >= next_prune) {
        forget_gone_consumers(*conn);
        next_prune = std::chrono::steady_clock::now() + kPrunePeriod;
      }
      for (;;) {
        Outgoing o;
        {
          std::lock_guard<std::mutex> lock(mutex_);
          if (out_.empty()) break;
          o = out_.front();
        }
        write_result(*conn, o);
        {
          std::lock_guard<std::mutex> lock(mutex_);
          out_.pop_front();
          --taken_;
          held_ids_.erase(o.entry_id);
          measured_ += o.result.has_value();
        }
        reader_cv_.notify_all();
      }
      if (stop) {
        heartbeat(*conn, true);
        break;
      }
    } catch (const BrokerError& e) {
      conn.reset();
      spdlog::debug("node {}: writer: {}", config_.node_name, e.what());
      if (stop) break;
      std::unique_lock<std::mutex> lock(mutex_);
      writer_cv_.wait_for(lock, backoff, [this] { return stopping_; });
      backoff = std::min(backoff * 2, kBackoffMax);
    }
  }
}

}  // namespace mrd::daemon
