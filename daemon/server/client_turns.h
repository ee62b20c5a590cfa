// Whose turn it is among the dispatcher's clients (connections), for builds or for runs: the
// client whose last turn is the oldest goes first. A client new to the queue is placed just
// before the client served last, behind every client whose last turn is older: a stream of
// connections that keep arriving never goes ahead of a client that was already waiting, and a
// client that has had no turn for a while (one small request now and then) is served as soon
// as a worker frees, after at most one turn of each client that waited longer. Within a
// client, its requests take turns (the request after the one served last).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace mrd::daemon {

class ClientTurns {
 public:
  /// Places `client` just before the client served last, unless it already has a place.
  void join(uint64_t client);
  /// `client` has had a turn, for its request `request_id`: it goes to the back.
  void served(uint64_t client, uint64_t request_id);
  void leave(uint64_t client);
  void clear();
  /// The request served last of `client`, if any.
  std::optional<uint64_t> last_request(uint64_t client) const;
  /// (place, client) pairs, the client whose turn is next first.
  const std::set<std::pair<uint64_t, uint64_t>>& queue() const { return queue_; }

 private:
  void place(uint64_t client, uint64_t at);
  /// The client served at turn t gets place 2t; one that joins after turn t gets 2t - 1,
  /// behind the client served at turn t - 1 and ahead of the one served at t.
  uint64_t turns_ = 0;
  std::map<uint64_t, uint64_t> place_;
  std::set<std::pair<uint64_t, uint64_t>> queue_;
  std::map<uint64_t, uint64_t> last_request_;
};

}  // namespace mrd::daemon
