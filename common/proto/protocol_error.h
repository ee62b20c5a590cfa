// Typed errors of the wire protocol. An ErrorCode travels in Error frames; a ProtocolError is
// what the frame decoder and the message decoders throw or report for bytes they refuse.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mrd::proto {

/// Error codes of Error frames; the numbers are part of the protocol.
enum class ErrorCode : uint16_t {
  BadMagic = 1,            ///< the frame does not start with the magic bytes
  UnsupportedVersion = 2,  ///< protocol version not spoken by this peer
  BodyTooLarge = 3,        ///< body length above the receiver's maximum
  MalformedBody = 4,       ///< body bytes do not decode as the message type says
  UnexpectedMessage = 5,   ///< unknown message type, or not allowed at this point
  InvalidRequest = 6,      ///< decodes, but a value is out of range
  DuplicateRequest = 7,    ///< a request id already in flight on this connection
  UnknownRequest = 8,      ///< cancel of a request id that is not in flight
  ShuttingDown = 9,        ///< the daemon is stopping; the connection closes
  Internal = 10,           ///< a bug in measurerd
  PeerNotAllowed = 11,     ///< the connecting uid/gid may not use the daemon; sent at connect
  TimedOut = 12,           ///< no Hello in time, or the connection stayed idle too long
  TooManyConnections = 13,  ///< the peer's uid has as many connections as it may; sent at connect
};

/// "BAD_MAGIC", "UNSUPPORTED_VERSION", ...; "UNKNOWN" for numbers not in the table.
std::string_view error_code_name(ErrorCode c);

class ProtocolError : public std::runtime_error {
 public:
  ProtocolError(ErrorCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace mrd::proto
