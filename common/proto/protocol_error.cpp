#include "common/proto/protocol_error.h"

namespace mrd::proto {

std::string_view error_code_name(ErrorCode c) {
  switch (c) {
    case ErrorCode::BadMagic:
      return "BAD_MAGIC";
    case ErrorCode::UnsupportedVersion:
      return "UNSUPPORTED_VERSION";
    case ErrorCode::BodyTooLarge:
      return "BODY_TOO_LARGE";
    case ErrorCode::MalformedBody:
      return "MALFORMED_BODY";
    case ErrorCode::UnexpectedMessage:
      return "UNEXPECTED_MESSAGE";
    case ErrorCode::InvalidRequest:
      return "INVALID_REQUEST";
    case ErrorCode::DuplicateRequest:
      return "DUPLICATE_REQUEST";
    case ErrorCode::UnknownRequest:
      return "UNKNOWN_REQUEST";
    case ErrorCode::ShuttingDown:
      return "SHUTTING_DOWN";
    case ErrorCode::Internal:
      return "INTERNAL";
    case ErrorCode::PeerNotAllowed:
      return "PEER_NOT_ALLOWED";
    case ErrorCode::TimedOut:
      return "TIMED_OUT";
    case ErrorCode::TooManyConnections:
      return "TOO_MANY_CONNECTIONS";
  }
  return "UNKNOWN";
}

}  // namespace mrd::proto
