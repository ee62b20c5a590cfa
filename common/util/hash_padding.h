// The message padding that MD5 and SHA-256 share: the data cut into 64-byte blocks, then a
// final block or two holding the rest of the data, the byte 0x80, zeros, and the data's length
// in bits as the last 8 bytes (little-endian for MD5, big-endian for SHA-256).
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace mrd {

enum class LengthOrder { LittleEndian, BigEndian };

/// Calls block(const unsigned char*) on each 64-byte block of the padded data, in order.
template <class F>
void for_each_padded_block(std::string_view data, LengthOrder order, F&& block) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
  size_t full = data.size() / 64 * 64;
  for (size_t off = 0; off < full; off += 64) block(bytes + off);

  unsigned char tail[128] = {};
  size_t rest = data.size() - full;
  if (rest) std::memcpy(tail, bytes + full, rest);
  tail[rest] = 0x80;
  size_t tail_len = rest + 1 + 8 <= 64 ? 64 : 128;
  uint64_t bits = static_cast<uint64_t>(data.size()) * 8;
  for (size_t i = 0; i < 8; ++i) {
    size_t at = order == LengthOrder::LittleEndian ? tail_len - 8 + i : tail_len - 1 - i;
    tail[at] = static_cast<unsigned char>(bits >> (8 * i));
  }
  for (size_t off = 0; off < tail_len; off += 64) block(tail + off);
}

}  // namespace mrd
