// Message bodies are cereal binary archives. Writing uses cereal's BinaryOutputArchive as is;
// reading uses BodyReader, a cereal input archive over a byte view that knows how many bytes
// remain, so that every count and length read from a peer is checked against the remaining
// bytes before anything is allocated. Strings and vectors use cereal's layout (a uint64 count,
// then the elements) but go through the helpers below, never through cereal's own std types.
#pragma once

#include <cereal/archives/binary.hpp>
#include <cereal/cereal.hpp>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "common/proto/protocol_error.h"

namespace mrd::proto {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the wire format is little-endian and written in host order");

class BodyReader : public cereal::InputArchive<BodyReader, cereal::AllowEmptyClassElision> {
 public:
  explicit BodyReader(std::string_view body)
      : cereal::InputArchive<BodyReader, cereal::AllowEmptyClassElision>(this), data_(body) {}

  void load_binary(void* out, size_t n) {
    if (n > remaining()) throw ProtocolError(ErrorCode::MalformedBody, "message body is truncated");
    std::memcpy(out, data_.data() + pos_, n);
    pos_ += n;
  }
  size_t remaining() const { return data_.size() - pos_; }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

template <class T>
inline void prologue(BodyReader&, const T&) {}
template <class T>
inline void epilogue(BodyReader&, const T&) {}

template <class T>
inline std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, bool>>
CEREAL_LOAD_FUNCTION_NAME(BodyReader& ar, T& t) {
  ar.load_binary(&t, sizeof(T));
}

/// A bool is one byte, 0 or 1; any other value is refused.
inline void CEREAL_LOAD_FUNCTION_NAME(BodyReader& ar, bool& b) {
  uint8_t v = 0;
  ar.load_binary(&v, 1);
  if (v > 1) throw ProtocolError(ErrorCode::MalformedBody, "bool field is neither 0 nor 1");
  b = v != 0;
}

using BodyWriter = cereal::BinaryOutputArchive;

inline void write_string(BodyWriter& ar, std::string_view s) {
  ar(static_cast<uint64_t>(s.size()));
  ar(cereal::binary_data(s.data(), s.size()));
}

inline void read_string(BodyReader& ar, std::string& s) {
  uint64_t n = 0;
  ar(n);
  if (n > ar.remaining())
    throw ProtocolError(ErrorCode::MalformedBody, "string length exceeds the body");
  s.resize(n);
  if (n) ar.load_binary(s.data(), n);
}

inline void write_strings(BodyWriter& ar, const std::vector<std::string>& v) {
  ar(static_cast<uint64_t>(v.size()));
  for (const auto& s : v) write_string(ar, s);
}

/// Each string takes at least 8 bytes (its length), so count × 8 must fit in the body.
inline void read_strings(BodyReader& ar, std::vector<std::string>& v, uint64_t max_count) {
  uint64_t n = 0;
  ar(n);
  if (n > max_count || n > ar.remaining() / 8)
    throw ProtocolError(ErrorCode::MalformedBody, "string count exceeds the body or the limit");
  v.clear();
  v.reserve(n);
  for (uint64_t i = 0; i < n; ++i) read_string(ar, v.emplace_back());
}

inline void write_doubles(BodyWriter& ar, const std::vector<double>& v) {
  ar(static_cast<uint64_t>(v.size()));
  for (double d : v) ar(d);
}

inline void read_doubles(BodyReader& ar, std::vector<double>& v) {
  uint64_t n = 0;
  ar(n);
  if (n > ar.remaining() / sizeof(double))
    throw ProtocolError(ErrorCode::MalformedBody, "value count exceeds the body");
  v.resize(n);
  for (auto& d : v) ar(d);
}

/// Serializes a message with `write(BodyWriter&, const M&)` into body bytes.
template <class M>
std::string encode_body(const M& m) {
  std::ostringstream os;
  {
    BodyWriter ar(os);
    write(ar, m);
  }
  return std::move(os).str();
}

}  // namespace mrd::proto
