// The daemon's listening socket: taken from systemd (LISTEN_FDS) when present, else bound at a
// path with mode 0660. Also where the default path is chosen and peer credentials are read.
#pragma once

#include <sys/types.h>

#include <boost/asio.hpp>
#include <string>

#include "daemon/server/peer_policy.h"

namespace mrd::daemon {

/// $RUNTIME_DIRECTORY/measurerd.sock, else /run/measurerd/measurerd.sock when that directory is
/// writable, else $XDG_RUNTIME_DIR/measurerd.sock. Throws UserError when none applies.
std::string default_socket_path();

/// The socket passed by systemd socket activation, or -1 when none was passed. Throws
/// UserError when the passed descriptor is not a listening Unix stream socket.
int systemd_listen_fd();

/// Which file a path named when it was bound: a socket file is ours only while the path still
/// leads to the same device and inode.
struct SocketFileId {
  dev_t dev = 0;
  ino_t ino = 0;
};

/// Binds and listens at `path` with mode 0660, replacing a stale socket file; throws UserError
/// when another daemon answers there or the path cannot be bound. Returns the identity of the
/// socket file it created.
SocketFileId bind_listen(boost::asio::local::stream_protocol::acceptor& acceptor,
                         const std::string& path);

/// Removes the socket file at `path` only when it is still the one identified by `id`; false
/// (and nothing removed) when the path is gone or now names another file, e.g. the socket of a
/// daemon started after ours was deleted.
bool unlink_if_ours(const std::string& path, SocketFileId id);

/// SO_PEERCRED of a connected Unix socket (pid -1 when unavailable), with the supplementary
/// groups from SO_PEERGROUPS where the kernel has it (Linux >= 4.13).
PeerCredentials peer_credentials(int fd);

/// Sets FD_CLOEXEC, so that workers do not inherit the descriptor.
void set_close_on_exec(int fd);

}  // namespace mrd::daemon
