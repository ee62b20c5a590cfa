#include "daemon/server/peer_policy.h"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/util/error.h"

namespace mrd::daemon {
namespace {

/// A decimal number below `limit` (the all-ones id is never a valid uid or gid).
std::optional<uint64_t> parse_id(const std::string& s, uint64_t limit) {
  if (s.empty() || s.size() > 10 ||
      !std::all_of(s.begin(), s.end(), [](unsigned char c) { return c >= '0' && c <= '9'; }))
    return {};
  uint64_t v = std::stoull(s);
  if (v >= limit) return {};
  return v;
}

std::vector<char> lookup_buffer(int which) {
  long n = ::sysconf(which);
  return std::vector<char>(n > 0 ? static_cast<size_t>(n) : 16384);
}

std::optional<std::string> user_name(uid_t uid) {
  auto buf = lookup_buffer(_SC_GETPW_R_SIZE_MAX);
  passwd pw{}, *found = nullptr;
  if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found) return found->pw_name;
  return {};
}

std::optional<std::string> group_name(gid_t gid) {
  auto buf = lookup_buffer(_SC_GETGR_R_SIZE_MAX);
  group gr{}, *found = nullptr;
  if (getgrgid_r(gid, &gr, buf.data(), buf.size(), &found) == 0 && found) return found->gr_name;
  return {};
}

template <class Id, class Name>
std::string id_list(const std::set<Id>& ids, Name name) {
  if (ids.empty()) return "none";
  std::string out;
  for (Id id : ids) {
    if (!out.empty()) out += ", ";
    out += std::to_string(id);
    if (auto n = name(id)) out += str_cat(" (", *n, ")");
  }
  return out;
}

}  // namespace

PeerPolicy make_peer_policy(const PeerAllowList& allow, uid_t daemon_uid,
                            std::optional<gid_t> socket_gid) {
  PeerPolicy p;
  p.uids = {0, daemon_uid};
  if (allow.uids.empty() && allow.gids.empty()) {
    if (socket_gid) p.gids.insert(*socket_gid);
    return p;
  }
  p.uids.insert(allow.uids.begin(), allow.uids.end());
  p.gids.insert(allow.gids.begin(), allow.gids.end());
  return p;
}

bool peer_allowed(const PeerPolicy& policy, const PeerCredentials& peer) {
  if (policy.uids.count(peer.uid)) return true;
  if (policy.gids.count(peer.gid)) return true;
  return std::any_of(peer.groups.begin(), peer.groups.end(),
                     [&](gid_t g) { return policy.gids.count(g) > 0; });
}

uid_t resolve_uid(const std::string& s) {
  if (auto v = parse_id(s, static_cast<uid_t>(-1))) return static_cast<uid_t>(*v);
  auto buf = lookup_buffer(_SC_GETPW_R_SIZE_MAX);
  passwd pw{}, *found = nullptr;
  int rc = getpwnam_r(s.c_str(), &pw, buf.data(), buf.size(), &found);
  MRD_USER_CHECK(rc == 0, "--allow-uid ", s, ": cannot look the user up: ", std::strerror(rc));
  MRD_USER_CHECK(found, "--allow-uid ", s, ": no such user (give a user name or a uid)");
  return found->pw_uid;
}

gid_t resolve_gid(const std::string& s) {
  if (auto v = parse_id(s, static_cast<gid_t>(-1))) return static_cast<gid_t>(*v);
  auto buf = lookup_buffer(_SC_GETGR_R_SIZE_MAX);
  group gr{}, *found = nullptr;
  int rc = getgrnam_r(s.c_str(), &gr, buf.data(), buf.size(), &found);
  MRD_USER_CHECK(rc == 0, "--allow-gid ", s, ": cannot look the group up: ", std::strerror(rc));
  MRD_USER_CHECK(found, "--allow-gid ", s, ": no such group (give a group name or a gid)");
  return found->gr_gid;
}

std::string describe_policy(const PeerPolicy& policy) {
  return str_cat("uids ", id_list(policy.uids, user_name), "; gids ",
                 id_list(policy.gids, group_name));
}

std::string describe_peer(const PeerCredentials& peer) {
  std::string groups;
  for (gid_t g : peer.groups) groups += (groups.empty() ? "" : ",") + std::to_string(g);
  if (!peer.groups_known) groups = "unknown";
  if (groups.empty()) groups = "none";
  return str_cat("pid ", peer.pid, " uid ", peer.uid, " gid ", peer.gid, " groups ", groups);
}

std::string refusal_message(const PeerCredentials& peer, const std::string& policy_description) {
  return str_cat("uid ", peer.uid, " gid ", peer.gid, " may not use this measurerd; allowed are ",
                 policy_description,
                 ". Join an allowed group, or have measurerd started with --allow-uid ", peer.uid,
                 " or --allow-gid GROUP");
}

}  // namespace mrd::daemon
