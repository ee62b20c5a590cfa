// Runs as another user, for the peer-check tests (started as root): takes the given
// supplementary groups, gid and uid, then either probes a measurerd socket or executes a
// program.
//
//   as_user UID GID GROUPS --probe SOCKET   connect, send nothing, print what the daemon sends
//   as_user UID GID GROUPS PROGRAM ARGS...  execute PROGRAM (opened before the switch, so the
//                                           new user needs only its execute permission)
//
// GROUPS is a comma-separated list of gids, or "-" for none. The probe prints one line per
// frame ("frame TYPE", and for an Error frame "error CODE MESSAGE"), then "eof" when the daemon
// closes, "timeout: ..." when nothing comes for 60 s, or "connect-failed REASON". Exit codes: 0
// probe done, 2 bad usage, 3 cannot connect, 4 cannot switch user or execute.
#include <fcntl.h>
#include <grp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "common/proto/codec.h"
#include "common/proto/frame_decoder.h"

namespace {

std::vector<gid_t> parse_groups(const std::string& s) {
  std::vector<gid_t> out;
  if (s == "-") return out;
  std::istringstream in(s);
  for (std::string g; std::getline(in, g, ',');) out.push_back(static_cast<gid_t>(std::stoul(g)));
  return out;
}

int probe(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    std::cout << "connect-failed " << std::strerror(errno) << std::endl;
    return 3;
  }
  timeval guard{60, 0};  // against a hung test (an accepted peer gets nothing), not a wait
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &guard, sizeof guard);
  mrd::proto::FrameDecoder decoder(1u << 20);
  char buf[4096];
  for (;;) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      std::cout << "timeout: nothing more in 60 s" << std::endl;
      return 0;
    }
    if (n <= 0) break;
    decoder.feed(std::string_view(buf, static_cast<size_t>(n)));
    while (auto f = decoder.next()) {
      std::cout << "frame " << f->type << "\n";
      if (f->type == uint16_t(mrd::proto::MessageType::Error)) {
        auto e = mrd::proto::decode<mrd::proto::ErrorMsg>(f->body);
        std::cout << "error " << e.code << " " << e.message << "\n";
      }
    }
  }
  std::cout << "eof" << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::cerr << "usage: as_user UID GID GROUPS (--probe SOCKET | PROGRAM ARGS...)\n";
    return 2;
  }
  uid_t uid = static_cast<uid_t>(std::stoul(argv[1]));
  gid_t gid = static_cast<gid_t>(std::stoul(argv[2]));
  std::vector<gid_t> groups = parse_groups(argv[3]);
  std::string what = argv[4];
  int exe = -1;
  if (what != "--probe") {
    exe = ::open(argv[4], O_RDONLY | O_CLOEXEC);
    if (exe < 0) {
      std::cerr << "as_user: cannot open " << argv[4] << ": " << std::strerror(errno) << "\n";
      return 4;
    }
  }
  if (::setgroups(groups.size(), groups.data()) != 0 || ::setgid(gid) != 0 || ::setuid(uid) != 0) {
    std::cerr << "as_user: cannot become uid " << uid << " gid " << gid << ": "
              << std::strerror(errno) << "\n";
    return 4;
  }
  if (what == "--probe") return probe(argc > 5 ? argv[5] : "");
  ::fexecve(exe, argv + 4, environ);
  std::cerr << "as_user: cannot execute " << argv[4] << ": " << std::strerror(errno) << "\n";
  return 4;
}
