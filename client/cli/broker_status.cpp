// measurer --broker URL status: the broker's device keys, their queues and their nodes.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "client/cli/commands.h"
#include "client/cli/measure_backend.h"
#include "client/lib/broker_client.h"
#include "client/lib/client.h"
#include "common/broker/broker_status.h"
#include "common/broker/device_key.h"

namespace mrd::cli {

int run_broker_status(const Common& common) {
  client::BrokerOptions o = broker_options(common);
  std::vector<broker::DeviceQueue> queues;
  try {
    broker::RedisConnection c(o.endpoint);
    queues = broker::read_status(c);
  } catch (const broker::BrokerError& e) {
    throw client::ConnectionError(e.what());
  }
  double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::string local = broker::local_device_key();
  if (common.json) {
    nlohmann::json j;
    j["broker"] = o.endpoint.text();
    j["local_device_key"] = local;
    nlohmann::json keys = nlohmann::json::array();
    for (const auto& q : queues) {
      nlohmann::json nodes = nlohmann::json::array();
      for (const auto& n : q.nodes)
        nodes.push_back({{"name", n.name},       {"host", n.host},         {"pid", n.pid},
                         {"alive", n.alive},     {"busy", n.busy},         {"workers", n.workers},
                         {"cores", n.cores},     {"policy", n.policy},     {"measured", n.measured},
                         {"last_seen", n.last_seen}});
      keys.push_back({{"device_key", q.device_key},
                      {"waiting", q.waiting},
                      {"pending", q.pending},
                      {"nodes", nodes}});
    }
    j["device_keys"] = keys;
    std::cout << j.dump() << "\n";
    return kOk;
  }
  std::cout << "broker " << o.endpoint.text() << " (this machine's device key: " << local
            << ")\n";
  if (queues.empty()) std::cout << "no device key: no node has joined yet\n";
  for (const auto& q : queues) {
    size_t alive = 0;
    for (const auto& n : q.nodes) alive += n.alive;
    std::cout << "\n" << q.device_key << "\n"
              << "  queue   " << q.waiting << " waiting, " << q.pending
              << " on nodes (delivered, not yet answered)\n"
              << "  nodes   " << alive << " alive of " << q.nodes.size() << "\n";
    for (const auto& n : q.nodes) {
      char seen[32];
      std::snprintf(seen, sizeof seen, "%.1f s ago", std::max(0.0, now - n.last_seen));
      std::cout << "    " << n.name << "  " << (n.alive ? "alive" : "gone ") << "  busy "
                << n.busy << "/" << n.workers << "  measured " << n.measured << "  last seen "
                << seen << "  (" << n.host << " pid " << n.pid << ", " << n.cores << " cores, "
                << n.policy << ")\n";
    }
  }
  return kOk;
}

}  // namespace mrd::cli
