// The peer policy as a pure function: defaults, replacement by --allow-uid / --allow-gid,
// supplementary groups, name resolution and the refusal text.
#include "daemon/server/peer_policy.h"

#include <catch2/catch.hpp>

#include "common/util/error.h"

using namespace mrd;
using namespace mrd::daemon;

namespace {

PeerCredentials peer(uid_t uid, gid_t gid, std::vector<gid_t> groups = {}, bool known = true) {
  PeerCredentials p;
  p.pid = 42;
  p.uid = uid;
  p.gid = gid;
  p.groups = std::move(groups);
  p.groups_known = known;
  return p;
}

}  // namespace

TEST_CASE("the default policy allows root and the daemon's user and the socket's group") {
  PeerPolicy p = make_peer_policy({}, 998, gid_t{997});
  CHECK(p.uids == std::set<uid_t>{0, 998});
  CHECK(p.gids == std::set<gid_t>{997});
  CHECK(peer_allowed(p, peer(0, 0)));
  CHECK(peer_allowed(p, peer(998, 998)));
  CHECK(peer_allowed(p, peer(1000, 997)));              // primary group
  CHECK(peer_allowed(p, peer(1000, 1000, {27, 997})));  // supplementary group
  CHECK_FALSE(peer_allowed(p, peer(1000, 1000, {27, 100})));
  CHECK_FALSE(peer_allowed(p, peer(1000, 1000, {}, false)));
  // Without a socket file (its group unknown), only the users.
  PeerPolicy no_group = make_peer_policy({}, 998, std::nullopt);
  CHECK(no_group.gids.empty());
  CHECK_FALSE(peer_allowed(no_group, peer(1000, 997)));
}

TEST_CASE("allowed uids and gids replace the socket's group but never root or the daemon's user") {
  PeerAllowList uids_only;
  uids_only.uids = {1000};
  PeerPolicy p = make_peer_policy(uids_only, 998, gid_t{997});
  CHECK(p.uids == std::set<uid_t>{0, 998, 1000});
  CHECK(p.gids.empty());
  CHECK(peer_allowed(p, peer(1000, 1000)));
  CHECK_FALSE(peer_allowed(p, peer(1001, 997)));  // the socket's group no longer counts
  CHECK(peer_allowed(p, peer(0, 0)));
  CHECK(peer_allowed(p, peer(998, 998)));

  PeerAllowList gids_only;
  gids_only.gids = {4242, 4243};
  p = make_peer_policy(gids_only, 998, gid_t{997});
  CHECK(p.uids == std::set<uid_t>{0, 998});
  CHECK(p.gids == std::set<gid_t>{4242, 4243});
  CHECK(peer_allowed(p, peer(1000, 4243)));
  CHECK(peer_allowed(p, peer(1000, 1000, {4242})));
  CHECK_FALSE(peer_allowed(p, peer(1000, 997)));
}

TEST_CASE("users and groups resolve by name or by number") {
  CHECK(resolve_uid("0") == 0);
  CHECK(resolve_uid("root") == 0);
  CHECK(resolve_uid("65534") == 65534);
  CHECK(resolve_gid("root") == 0);
  CHECK(resolve_gid("4242") == 4242);
  CHECK_THROWS_AS(resolve_uid("no-such-user-here"), UserError);
  CHECK_THROWS_WITH(resolve_gid("no-such-group-here"),
                    "--allow-gid no-such-group-here: no such group (give a group name or a gid)");
  CHECK_THROWS_AS(resolve_uid(""), UserError);
  CHECK_THROWS_AS(resolve_uid("-1"), UserError);
  CHECK_THROWS_AS(resolve_uid("4294967295"), UserError);  // (uid_t)-1 is no uid
  CHECK_THROWS_AS(resolve_gid("99999999999"), UserError);
}

TEST_CASE("descriptions and the refusal name the ids and how to be allowed") {
  PeerPolicy p;
  p.uids = {0, 4321};
  p.gids = {4242};
  std::string text = describe_policy(p);
  CHECK(text.rfind("uids 0 (root), 4321", 0) == 0);
  CHECK(text.find("; gids 4242") != std::string::npos);
  CHECK(describe_policy(PeerPolicy{}) == "uids none; gids none");
  CHECK(describe_peer(peer(1000, 1001, {27, 1001})) == "pid 42 uid 1000 gid 1001 groups 27,1001");
  CHECK(describe_peer(peer(1000, 1001)) == "pid 42 uid 1000 gid 1001 groups none");
  CHECK(describe_peer(peer(1000, 1001, {}, false)) == "pid 42 uid 1000 gid 1001 groups unknown");
  std::string m = refusal_message(peer(1000, 1001), text);
  CHECK(m.rfind("uid 1000 gid 1001 may not use this measurerd; allowed are " + text, 0) == 0);
  CHECK(m.find("--allow-uid 1000 or --allow-gid GROUP") != std::string::npos);
}
