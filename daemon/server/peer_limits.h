// What one peer may hold of the daemon: time before its Hello, idle time, connections and
// requests per uid, unsent reply bytes per connection. Defaults are what measurerd runs with;
// every one is a command-line flag (proto-docs/limits.md lists them).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <map>
#include <memory>

namespace mrd::daemon {

struct PeerLimits {
  double hello_timeout = 10;  ///< seconds from accept to a whole Hello; 0: none
  /// Seconds with no whole frame received and no reply written, while no request is in flight
  /// or its replies go unread; 0: none.
  double idle_timeout = 600;
  size_t max_connections_per_uid = 64;
  size_t max_requests_per_uid = 1024;         ///< in flight, over all its connections
  size_t max_requests_per_connection = 256;  ///< in flight
  size_t max_unsent = 4u << 20;              ///< bytes; past it the session stops reading
};

/// What one uid holds now, shared by its sessions.
struct UidUsage {
  size_t connections = 0;
  size_t requests = 0;
};

/// The usage of each uid with a live connection or a request in flight.
class UidUsageTable {
 public:
  /// The usage record of `uid`, created empty when absent. Records nobody holds any more are
  /// forgotten here.
  std::shared_ptr<UidUsage> of(uid_t uid) {
    for (auto it = usage_.begin(); it != usage_.end();)
      it = it->second.use_count() == 1 ? usage_.erase(it) : std::next(it);
    auto& u = usage_[uid];
    if (!u) u = std::make_shared<UidUsage>();
    return u;
  }

 private:
  std::map<uid_t, std::shared_ptr<UidUsage>> usage_;
};

}  // namespace mrd::daemon
