#include "daemon/server/session_manager.h"

#include "daemon/server/session.h"

namespace mrd::daemon {

void SessionManager::join(const std::shared_ptr<Session>& s) {
  sessions_[s->client_id()] = s;
}

void SessionManager::leave(uint64_t client_id) {
  sessions_.erase(client_id);
}

void SessionManager::stop_all(proto::ErrorCode code, const std::string& message) {
  auto sessions = std::move(sessions_);
  sessions_.clear();
  for (auto& [id, s] : sessions) s->close_with_error(code, message);
}

}  // namespace mrd::daemon
