// SHA-256 of a byte string, as lowercase hex: the content address of the compile cache.
#pragma once

#include <string>
#include <string_view>

namespace mrd::measure {

std::string sha256_hex(std::string_view data);

}  // namespace mrd::measure
