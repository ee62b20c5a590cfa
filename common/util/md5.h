// MD5 (RFC 1321) of a byte string, as lowercase hex. Used for stable, content-derived keys
// (workload hashes), never for security.
#pragma once

#include <string>
#include <string_view>

namespace mrd {

/// The 32-character lowercase hex MD5 digest of `data`.
std::string md5_hex(std::string_view data);

}  // namespace mrd
