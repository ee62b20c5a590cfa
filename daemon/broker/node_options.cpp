#include "daemon/broker/node_options.h"

#include <unistd.h>

#include "common/broker/broker_keys.h"
#include "common/broker/device_key.h"
#include "common/util/error.h"

namespace mrd::daemon {

void add_node_options(CLI::App& app, NodeConfig& c) {
  const char* group = "Broker (several machines share work)";
  app.add_option("--broker", c.url,
                 "also serve as a node of this Redis broker: redis://[USER:PASSWORD@]HOST[:PORT]"
                 "[/DB] or unix:///PATH[?db=N]. The node takes jobs of its device key from the "
                 "broker whenever it has a free worker, measures them with its own workers and "
                 "timing policy and writes each result back; local clients are served as "
                 "before. A lost broker is retried with back-off")
      ->group(group);
  app.add_option("--broker-password-file", c.password_file,
                 "file whose first line is the broker password, or \"USER PASSWORD\" for an ACL "
                 "user (keeps the password out of the command line)")
      ->group(group);
  app.add_option("--device-key", c.device_key,
                 "job stream to serve (default: a key from the CPU model, core count and ISA "
                 "features, shared by identical machines); [A-Za-z0-9._-]")
      ->group(group);
  app.add_option("--node-name", c.node_name, "this node's name on the broker (default: HOST-PID)")
      ->group(group);
  app.add_option("--broker-claim-idle", c.claim_idle,
                 "seconds a job of a silent node waits before another node takes it over")
      ->check(CLI::Range(0.2, 86400.0))
      ->capture_default_str()
      ->group(group);
  app.add_option("--broker-max-deliveries", c.max_deliveries,
                 "a job delivered more often than this (its nodes died on it) is answered "
                 "with an error result instead of measured again")
      ->check(CLI::Range(1u, 1000u))
      ->capture_default_str()
      ->group(group);
}

void finish_node_config(NodeConfig& c) {
  if (c.url.empty()) return;
  c.endpoint = broker::parse_redis_url(c.url);
  if (!c.password_file.empty()) broker::read_password_file(c.endpoint, c.password_file);
  if (c.device_key.empty()) c.device_key = broker::local_device_key();
  MRD_USER_CHECK(broker::valid_name(c.device_key), "--device-key ", c.device_key,
                 ": use 1 to 128 characters of A-Z a-z 0-9 . _ -");
  if (c.node_name.empty()) {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    std::string h;
    for (char ch : std::string(host)) h += broker::valid_name(std::string(1, ch)) ? ch : '-';
    c.node_name = (h.empty() ? "node" : h) + "-" + std::to_string(::getpid());
  }
  MRD_USER_CHECK(broker::valid_name(c.node_name), "--node-name ", c.node_name,
                 ": use 1 to 128 characters of A-Z a-z 0-9 . _ -");
}

}  // namespace mrd::daemon
