// Keeps the live sessions, so that the server can tell all of them at shutdown (as the
// connection_manager of the Boost.Asio HTTP server example).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>

#include "common/proto/protocol_error.h"

namespace mrd::daemon {

class Session;

class SessionManager {
 public:
  void join(const std::shared_ptr<Session>& s);
  void leave(uint64_t client_id);
  /// Every session gets an Error frame `code` and is closed.
  void stop_all(proto::ErrorCode code, const std::string& message);
  size_t size() const { return sessions_.size(); }

 private:
  std::map<uint64_t, std::shared_ptr<Session>> sessions_;
};

}  // namespace mrd::daemon
