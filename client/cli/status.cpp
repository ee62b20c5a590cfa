// measurer status: what the daemon is doing.
#include <iostream>
#include <nlohmann/json.hpp>

#include "client/cli/commands.h"
#include "client/lib/client.h"

namespace mrd::cli {

int run_status(const Common& common) {
  if (!common.broker.empty()) return run_broker_status(common);
  client::Client c(common.socket.empty() ? client::default_socket_path() : common.socket);
  auto s = c.status();
  const auto& w = c.welcome();
  if (common.json) {
    nlohmann::json j;
    j["server"] = w.server_version;
    j["cpu_model"] = w.cpu_model;
    j["cores"] = w.cores;
    j["timing_policy"] = std::string(measure::timing_policy_name(s.policy));
    j["workers"] = s.workers;
    j["workers_alive"] = s.workers_alive;
    j["queued"] = s.queued;
    j["in_flight"] = s.in_flight;
    j["completed"] = s.completed;
    j["throughput"] = s.throughput;
    j["cache_hits"] = s.cache_hits;
    j["uptime"] = s.uptime;
    j["clients"] = s.clients;
    j["requests"] = s.requests;
    nlohmann::json list = nlohmann::json::array();
    for (const auto& x : s.worker_list)
      list.push_back({{"pid", x.pid},
                      {"state", std::string(proto::worker_state_name(x.state))},
                      {"jobs", x.jobs}});
    j["worker_list"] = list;
    j["degraded"] = s.degraded;
    std::cout << j.dump() << "\n";
    return kOk;
  }
  std::cout << w.server_version << " on " << w.cpu_model << " (" << w.cores << " cores)\n";
  if (!s.degraded.empty()) std::cout << "DEGRADED       " << s.degraded << "\n";
  std::cout
            << "timing policy  " << measure::timing_policy_name(s.policy) << "\n"
            << "workers        " << s.workers_alive << "/" << s.workers << "\n"
            << "queue          " << s.queued << " waiting, " << s.in_flight << " on workers\n"
            << "completed      " << s.completed << " (" << s.throughput
            << "/s over the last minute)\n"
            << "cache hits     " << s.cache_hits << "\n"
            << "clients        " << s.clients << ", " << s.requests << " requests in flight\n"
            << "uptime         " << static_cast<long long>(s.uptime) << " s\n";
  for (const auto& x : s.worker_list)
    std::cout << "  worker " << x.pid << "  " << proto::worker_state_name(x.state) << "  " << x.jobs
              << " jobs\n";
  return kOk;
}

}  // namespace mrd::cli
