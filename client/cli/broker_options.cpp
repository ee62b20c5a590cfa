#include "client/cli/broker_options.h"

namespace mrd::cli {

void add_broker_options(CLI::App& app, Common& common) {
  const char* group = "Broker (measure on the nodes of several machines)";
  app.add_option("--broker", common.broker,
                 "measure on the nodes of this Redis broker instead of the local measurerd: "
                 "redis://[USER:PASSWORD@]HOST[:PORT][/DB] or unix:///PATH[?db=N] (status: list "
                 "its device keys, nodes and queues)")
      ->group(group);
  app.add_option("--broker-password-file", common.broker_password_file,
                 "file whose first line is the broker password, or \"USER PASSWORD\"")
      ->group(group);
  app.add_option("--device-key", common.device_key,
                 "the nodes to measure on (default: this machine's key, as `measurer --broker URL "
                 "status` shows it)")
      ->group(group);
  app.add_option("--broker-window", common.broker_window,
                 "jobs of one request in the broker's queue at once: another requester's jobs "
                 "wait behind at most this many")
      ->check(CLI::Range(size_t(1), size_t(100000)))
      ->capture_default_str()
      ->group(group);
}

}  // namespace mrd::cli
