// The broker's key layout (proto-docs/broker.md): one job stream per device key read by the
// consumer group of the nodes, one result stream per requester, the task bytes by hash, and
// each node's heartbeat hash.
#pragma once

#include <string>
#include <cctype>
#include <string_view>

namespace mrd::broker {

inline constexpr const char* kGroup = "nodes";
inline constexpr const char* kDevicesKey = "mrd:devices";

inline std::string jobs_stream(const std::string& device_key) { return "mrd:jobs:" + device_key; }
inline std::string results_stream(const std::string& requester) {
  return "mrd:results:" + requester;
}
inline std::string task_key(const std::string& hash) { return "mrd:task:" + hash; }
inline std::string nodes_set(const std::string& device_key) { return "mrd:nodes:" + device_key; }
inline std::string node_key(const std::string& device_key, const std::string& node) {
  return "mrd:node:" + device_key + ":" + node;
}

/// A device key, node name or requester id: 1 to 128 characters of [A-Za-z0-9._-].
inline bool valid_name(std::string_view s) {
  if (s.empty() || s.size() > 128) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'))
      return false;
  return true;
}

}  // namespace mrd::broker
