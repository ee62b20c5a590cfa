// SHA-256 (FIPS 180-4) of a byte string: the content address of the compile cache and the name
// of a task on the daemon <-> worker link and on the broker.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace mrd {

std::array<uint8_t, 32> sha256(std::string_view data);
/// The digest as 64 lowercase hex digits.
std::string sha256_hex(std::string_view data);

}  // namespace mrd
