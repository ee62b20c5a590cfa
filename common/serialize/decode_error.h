// The typed error of loading a DAG archive: every way an archive can be rejected has its own
// code, so callers and tests can tell a truncated transfer from a hostile or buggy peer.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace mrd::serialize {

enum class DecodeErrc {
  Truncated,        ///< the data ends before the archive does
  BadMagic,         ///< not a DAG archive
  BadVersion,       ///< a format version this build does not read
  Malformed,        ///< syntactically or semantically invalid content
  UnknownNodeKind,  ///< a node kind this format version does not define
  DanglingId,       ///< a reference to a node id that does not exist
  ForwardId,        ///< a reference to a later node
  Cycle,            ///< a node referring to itself
  WrongArity,       ///< wrong number of operands or indices
  DTypeMismatch,    ///< operand or recorded types that do not fit
  BadShape,         ///< a zero or negative dimension or extent
  TooLarge,         ///< beyond a size limit (input, name, rank, elements, bytes)
  TooManyNodes,     ///< beyond the node-count limit
  TooDeep,          ///< an expression deeper than the depth limit
};

/// The code's name, e.g. "ForwardId".
std::string_view decode_errc_name(DecodeErrc code);

class DecodeError : public std::runtime_error {
 public:
  DecodeError(DecodeErrc code, std::string msg);
  DecodeErrc code() const { return code_; }

 private:
  DecodeErrc code_;
};

}  // namespace mrd::serialize
