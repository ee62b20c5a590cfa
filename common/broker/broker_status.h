// What the broker knows of its nodes and queues: the device keys, each key's queue (jobs
// waiting, jobs delivered and not yet answered) and its nodes from their heartbeat hashes. A
// node is alive while its last heartbeat is less than three heartbeat periods old.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/broker/redis_connection.h"

namespace mrd::broker {

struct NodeInfo {
  std::string name;
  std::string host;
  int64_t pid = 0;
  uint32_t workers = 0;
  uint32_t cores = 0;
  std::string policy;
  uint64_t busy = 0;      ///< jobs taken and not yet answered
  uint64_t measured = 0;  ///< results written since the node started
  double last_seen = 0;   ///< seconds since the epoch
  double heartbeat = 0;   ///< seconds between heartbeats
  bool alive = false;
};

struct DeviceQueue {
  std::string device_key;
  uint64_t waiting = 0;  ///< not yet delivered to a node
  uint64_t pending = 0;  ///< delivered, not yet answered
  std::vector<NodeInfo> nodes;
};

/// The nodes of one device key (alive or not, as long as their hash exists).
std::vector<NodeInfo> read_nodes(RedisConnection& c, const std::string& device_key);
/// Every device key the broker has seen a node for, in name order.
std::vector<DeviceQueue> read_status(RedisConnection& c);

}  // namespace mrd::broker
