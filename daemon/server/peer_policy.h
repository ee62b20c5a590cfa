// Who may use the daemon. Every connection's peer credentials (SO_PEERCRED, and its
// supplementary groups from SO_PEERGROUPS) are checked against the allowed uids and gids
// before a byte is read: a peer is allowed when its uid is allowed, or its primary gid or any
// of its supplementary groups is. Root and the daemon's own user are always allowed. With no
// --allow-uid / --allow-gid, the socket file's group is the allowed group (the group that
// systemd's SocketGroup= gives the socket); any --allow-uid / --allow-gid replaces it.
#pragma once

#include <sys/types.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mrd::daemon {

/// Who is at the other end of a Unix socket, as the kernel recorded it at connect().
struct PeerCredentials {
  pid_t pid = -1;
  uid_t uid = static_cast<uid_t>(-1);
  gid_t gid = static_cast<gid_t>(-1);
  /// Supplementary groups (SO_PEERGROUPS, Linux >= 4.13). When the kernel cannot tell
  /// (groups_known false), only the primary gid counts.
  std::vector<gid_t> groups;
  bool groups_known = false;
};

/// --allow-uid / --allow-gid, resolved to numbers. Both empty: the defaults.
struct PeerAllowList {
  std::vector<uid_t> uids;
  std::vector<gid_t> gids;
};

/// The uids and gids in force.
struct PeerPolicy {
  std::set<uid_t> uids;
  std::set<gid_t> gids;
};

/// Root and `daemon_uid` always; then, with an empty allow list, `socket_gid` (when known),
/// else exactly the listed uids and gids.
PeerPolicy make_peer_policy(const PeerAllowList& allow, uid_t daemon_uid,
                            std::optional<gid_t> socket_gid);

bool peer_allowed(const PeerPolicy& policy, const PeerCredentials& peer);

/// A user name (getpwnam) or a decimal uid; throws UserError for an unknown name or a number
/// out of range.
uid_t resolve_uid(const std::string& name_or_number);
/// A group name (getgrnam) or a decimal gid; throws UserError likewise.
gid_t resolve_gid(const std::string& name_or_number);

/// "uids 0 (root), 1000 (alice); gids 998 (measurerd)", for logs and messages. Looks the
/// names up, so it is computed once, not per connection.
std::string describe_policy(const PeerPolicy& policy);
/// "pid 12 uid 1000 gid 1000 groups 27,1000" ("none", "unknown"; numbers only: no lookup per
/// connection).
std::string describe_peer(const PeerCredentials& peer);
/// What a refused peer is told: its uid and gid, who is allowed (`policy_description`, from
/// describe_policy) and how to be allowed.
std::string refusal_message(const PeerCredentials& peer, const std::string& policy_description);

}  // namespace mrd::daemon
