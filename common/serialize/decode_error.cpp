#include "common/serialize/decode_error.h"

namespace mrd::serialize {

std::string_view decode_errc_name(DecodeErrc code) {
  switch (code) {
    case DecodeErrc::Truncated:
      return "Truncated";
    case DecodeErrc::BadMagic:
      return "BadMagic";
    case DecodeErrc::BadVersion:
      return "BadVersion";
    case DecodeErrc::Malformed:
      return "Malformed";
    case DecodeErrc::UnknownNodeKind:
      return "UnknownNodeKind";
    case DecodeErrc::DanglingId:
      return "DanglingId";
    case DecodeErrc::ForwardId:
      return "ForwardId";
    case DecodeErrc::Cycle:
      return "Cycle";
    case DecodeErrc::WrongArity:
      return "WrongArity";
    case DecodeErrc::DTypeMismatch:
      return "DTypeMismatch";
    case DecodeErrc::BadShape:
      return "BadShape";
    case DecodeErrc::TooLarge:
      return "TooLarge";
    case DecodeErrc::TooManyNodes:
      return "TooManyNodes";
    case DecodeErrc::TooDeep:
      return "TooDeep";
  }
  return "?";
}

DecodeError::DecodeError(DecodeErrc code, std::string msg)
    : std::runtime_error(std::string(decode_errc_name(code)) + ": " + msg), code_(code) {}

}  // namespace mrd::serialize
