// What makes a measurerd also a node of a broker (measurerd --broker URL): where the broker
// is, which job stream it serves and how it treats jobs whose node went away.
#pragma once

#include <string>

#include "common/broker/redis_url.h"

namespace mrd::daemon {

struct NodeConfig {
  std::string url;  ///< empty: no broker, not a node
  std::string password_file;
  broker::RedisEndpoint endpoint;
  std::string device_key;  ///< empty: broker::local_device_key()
  std::string node_name;   ///< empty: <hostname>-<pid>
  /// Seconds a delivered job may go without a sign of life from its node before another node
  /// takes it over (XAUTOCLAIM). A live node renews its jobs every claim_idle / 4.
  double claim_idle = 30;
  /// Deliveries after which a job is answered with an error instead of measured again.
  unsigned max_deliveries = 3;
};

}  // namespace mrd::daemon
