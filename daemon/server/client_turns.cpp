#include "daemon/server/client_turns.h"

namespace mrd::daemon {

void ClientTurns::join(uint64_t client) {
  if (!place_.count(client)) place(client, turns_ == 0 ? 0 : 2 * turns_ - 1);
}

void ClientTurns::served(uint64_t client, uint64_t request_id) {
  place(client, 2 * ++turns_);
  last_request_[client] = request_id;
}

void ClientTurns::leave(uint64_t client) {
  auto it = place_.find(client);
  if (it != place_.end()) {
    queue_.erase({it->second, client});
    place_.erase(it);
  }
  last_request_.erase(client);
}

void ClientTurns::clear() {
  place_.clear();
  queue_.clear();
  last_request_.clear();
}

std::optional<uint64_t> ClientTurns::last_request(uint64_t client) const {
  auto it = last_request_.find(client);
  if (it == last_request_.end()) return std::nullopt;
  return it->second;
}

void ClientTurns::place(uint64_t client, uint64_t at) {
  auto [it, inserted] = place_.emplace(client, at);
  if (!inserted) {
    queue_.erase({it->second, client});
    it->second = at;
  }
  queue_.insert({at, client});
}

}  // namespace mrd::daemon
