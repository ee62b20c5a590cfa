#include "daemon/server/listen_socket.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/util/error.h"

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59  // Linux >= 4.13
#endif

namespace mrd::daemon {

namespace asio = boost::asio;
using local = asio::local::stream_protocol;

std::string default_socket_path() {
  if (const char* rd = std::getenv("RUNTIME_DIRECTORY"); rd && *rd) {
    std::string dir(rd);
    dir = dir.substr(0, dir.find(':'));  // systemd lists several directories separated by ':'
    return dir + "/measurerd.sock";
  }
  if (access("/run/measurerd", W_OK) == 0) return "/run/measurerd/measurerd.sock";
  if (const char* xdg = std::getenv("XDG_RUNTIME_DIR"); xdg && *xdg)
    return std::string(xdg) + "/measurerd.sock";
  throw UserError(
      "no socket path: /run/measurerd is not writable and XDG_RUNTIME_DIR is not set; "
      "pass --socket PATH");
}

int systemd_listen_fd() {
  int n = sd_listen_fds(1);
  if (n <= 0) return -1;
  MRD_USER_CHECK(n == 1, "systemd passed ", n, " sockets; measurerd takes exactly one");
  int fd = SD_LISTEN_FDS_START;
  MRD_USER_CHECK(sd_is_socket_unix(fd, SOCK_STREAM, 1, nullptr, 0) > 0,
                 "the socket passed by systemd is not a listening Unix stream socket");
  return fd;
}

SocketFileId bind_listen(local::acceptor& acceptor, const std::string& path) {
  MRD_USER_CHECK(path.size() < sizeof(sockaddr_un::sun_path), "socket path too long: ", path);
  struct stat st;
  if (lstat(path.c_str(), &st) == 0) {
    MRD_USER_CHECK(S_ISSOCK(st.st_mode), path, " exists and is not a socket");
    local::socket probe(acceptor.get_executor());
    boost::system::error_code ec;
    probe.connect(local::endpoint(path), ec);
    MRD_USER_CHECK(ec, "another daemon is listening at ", path);
    ::unlink(path.c_str());  // stale: nobody answers
  }
  boost::system::error_code ec;
  acceptor.open(local(), ec);
  if (!ec) set_close_on_exec(acceptor.native_handle());
  // Bind under a restrictive umask, then widen to 0660: never a window with a wider mode.
  mode_t old = ::umask(0177);
  if (!ec) acceptor.bind(local::endpoint(path), ec);
  ::umask(old);
  MRD_USER_CHECK(!ec, "cannot bind ", path, ": ", ec.message());
  MRD_USER_CHECK(::chmod(path.c_str(), 0660) == 0, "cannot chmod ", path, ": ",
                 std::strerror(errno));
  acceptor.listen(asio::socket_base::max_listen_connections, ec);
  MRD_USER_CHECK(!ec, "cannot listen on ", path, ": ", ec.message());
  MRD_USER_CHECK(lstat(path.c_str(), &st) == 0, "cannot stat ", path, ": ", std::strerror(errno));
  return SocketFileId{st.st_dev, st.st_ino};
}

bool unlink_if_ours(const std::string& path, SocketFileId id) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return false;
  if (st.st_dev != id.dev || st.st_ino != id.ino) return false;
  return ::unlink(path.c_str()) == 0;
}

PeerCredentials peer_credentials(int fd) {
  PeerCredentials out;
  ucred cred{};
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
    out.pid = cred.pid;
    out.uid = cred.uid;
    out.gid = cred.gid;
  }
  // The list can be long (NGROUPS_MAX is 65536): ask, and ask again with the size the kernel
  // says it needs (ERANGE).
  std::vector<gid_t> groups(64);
  for (int attempt = 0; attempt < 2; ++attempt) {
    socklen_t glen = static_cast<socklen_t>(groups.size() * sizeof(gid_t));
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups.data(), &glen) == 0) {
      groups.resize(glen / sizeof(gid_t));
      out.groups = std::move(groups);
      out.groups_known = true;
      break;
    }
    if (errno != ERANGE || glen / sizeof(gid_t) > 65536) break;  // older kernel: gid only
    groups.resize(glen / sizeof(gid_t));
  }
  return out;
}

void set_close_on_exec(int fd) {
  int flags = fcntl(fd, F_GETFD);
  if (flags >= 0) fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

}  // namespace mrd::daemon
