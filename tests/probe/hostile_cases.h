// The hostile peers of measurerd-probe, each a bounded case against the daemon's socket: a
// fuzzer over mutations of a valid request, a flood of connections and requests, a client
// that never reads, descriptor exhaustion, slow (slowloris) peers, and requests the daemon
// must refuse. Each opens its own raw connections and closes every one before it returns,
// except the never-reading client, which is held until release_held().
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace mrd::probe {

/// A raw, blocking client socket with a receive guard, so that no case can hang.
class RawPeer {
 public:
  explicit RawPeer(const std::string& socket_path, double guard_seconds = 20);
  ~RawPeer();
  RawPeer(const RawPeer&) = delete;
  RawPeer& operator=(const RawPeer&) = delete;
  bool connected() const { return fd_ >= 0; }
  /// Sends all bytes; false when the daemon closed or the send stalled past the guard.
  bool send(const std::string& bytes);
  /// Reads until the daemon closes the connection (or the guard passes); bytes read.
  size_t drain();
  /// Stops sending (the daemon sees end of file), keeps reading possible.
  void shutdown_write();
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
};

struct CaseCounts {
  uint64_t cases = 0;       ///< hostile requests and connections made
  uint64_t refused = 0;     ///< connections the daemon closed or refused
};

class HostileCases {
 public:
  HostileCases(std::string socket_path, uint64_t seed);

  /// `n` mutations of a valid MeasureRequest, each on a fresh connection after a Hello.
  void fuzz(size_t n);
  /// `requests` StatusRequests on one connection, unread, then closed; and a burst of short
  /// connections.
  void flood(size_t requests);
  /// A client that sends `requests` StatusRequests and never reads; held until release_held().
  void never_reading(size_t requests);
  /// Lowers the daemon's open-file limit to its descriptors + `spare`, opens `connections`
  /// connections, closes them and restores the limit.
  void exhaust_fds(pid_t daemon, size_t spare, size_t connections);
  /// `n` connections that send one byte of their Hello and then nothing, and `n` that send a
  /// Hello and half a frame; they end when the daemon's Hello and idle timeouts close them.
  void slowloris(size_t n);
  /// Requests the daemon must refuse and keep the connection: NUL in a state, timing over the
  /// caps, a client name with newlines; and connections past the per-uid cap.
  void refusals(size_t over_cap);
  void release_held();

  const CaseCounts& counts() const { return counts_; }

 private:
  std::string socket_;
  std::mt19937_64 rng_;
  CaseCounts counts_;
  std::vector<std::unique_ptr<RawPeer>> held_;
};

}  // namespace mrd::probe
