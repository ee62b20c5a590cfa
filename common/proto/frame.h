// The frame: a fixed 12-byte little-endian header (magic, protocol version, message type, body
// length) followed by the body. Used on the client socket and on the daemon-worker pipes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace mrd::proto {

/// "MRDP" read as a little-endian uint32.
inline constexpr uint32_t kMagic = 0x5044524D;
/// The one protocol version this build speaks.
inline constexpr uint16_t kProtocolVersion = 1;
inline constexpr size_t kHeaderSize = 12;
/// Default maximum body length a receiver accepts (16 MiB).
inline constexpr uint32_t kDefaultMaxBody = 16u << 20;

struct FrameHeader {
  uint32_t magic = kMagic;
  uint16_t version = kProtocolVersion;
  uint16_t type = 0;
  uint32_t body_length = 0;
};

/// The 12 header bytes.
std::string encode_header(const FrameHeader& h);
/// Reads a header from exactly kHeaderSize bytes (no validation).
FrameHeader decode_header(const char* bytes);
/// A whole frame: header for `type` and `body`, then the body.
std::string make_frame(uint16_t type, std::string_view body);

}  // namespace mrd::proto
