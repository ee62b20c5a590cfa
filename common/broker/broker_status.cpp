#include "common/broker/broker_status.h"

#include <algorithm>
#include <chrono>
#include <map>

#include "common/broker/broker_keys.h"

namespace mrd::broker {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

double to_double(const std::string& s) {
  try {
    return std::stod(s);
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace

std::vector<NodeInfo> read_nodes(RedisConnection& c, const std::string& device_key) {
  RedisReply names = c.command({"SMEMBERS", nodes_set(device_key)});
  std::vector<NodeInfo> out;
  double now = now_seconds();
  for (const auto& n : names.elements) {
    if (!valid_name(n.str)) continue;
    RedisReply h = c.command({"HGETALL", node_key(device_key, n.str)});
    if (h.elements.empty()) {
      c.command({"SREM", nodes_set(device_key), n.str});  // its hash expired: forget it
      continue;
    }
    std::map<std::string, std::string> f;
    for (size_t i = 0; i + 1 < h.elements.size(); i += 2)
      f[h.elements[i].str] = h.elements[i + 1].str;
    NodeInfo info;
    info.name = n.str;
    info.host = f["host"];
    info.pid = static_cast<int64_t>(to_double(f["pid"]));
    info.workers = static_cast<uint32_t>(to_double(f["workers"]));
    info.cores = static_cast<uint32_t>(to_double(f["cores"]));
    info.policy = f["policy"];
    info.busy = static_cast<uint64_t>(to_double(f["busy"]));
    info.measured = static_cast<uint64_t>(to_double(f["measured"]));
    info.last_seen = to_double(f["last_seen"]);
    info.heartbeat = to_double(f["heartbeat"]);
    info.alive = now - info.last_seen < 3 * std::max(info.heartbeat, 0.1);
    out.push_back(std::move(info));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

std::vector<DeviceQueue> read_status(RedisConnection& c) {
  RedisReply keys = c.command({"SMEMBERS", kDevicesKey});
  std::vector<DeviceQueue> out;
  for (const auto& k : keys.elements) {
    if (!valid_name(k.str)) continue;
    DeviceQueue q;
    q.device_key = k.str;
    std::string stream = jobs_stream(k.str);
    // Answered jobs are deleted from the stream: its length is what waits plus what is pending.
    RedisReply len = c.command({"XLEN", stream});
    RedisReply pend = c.command({"XPENDING", stream, kGroup});
    uint64_t total = len.type == RedisReply::Type::Integer ? static_cast<uint64_t>(len.integer) : 0;
    q.pending = pend.at(0).type == RedisReply::Type::Integer ? static_cast<uint64_t>(pend.at(0).integer) : 0;
    q.waiting = total > q.pending ? total - q.pending : 0;
    q.nodes = read_nodes(c, k.str);
    out.push_back(std::move(q));
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.device_key < b.device_key; });
  return out;
}

}  // namespace mrd::broker
