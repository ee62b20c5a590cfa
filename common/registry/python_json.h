// JSON text exactly as Python's json.dumps prints it with default settings (separators
// ", " and ": ", ensure_ascii, floats as repr()), so workload keys match TVM's byte for byte.
#pragma once

#include <string>
#include <string_view>

namespace mrd::registry {

/// A JSON string literal with Python's escaping (non-ASCII as \uXXXX, UTF-16 surrogate pairs
/// above U+FFFF; invalid UTF-8 bytes as \ufffd).
std::string python_json_string(std::string_view s);
/// Python's repr() of a float as json.dumps writes it: 1.0, 0.1, 1e-05, 1e+16; NaN,
/// Infinity, -Infinity for the non-finite values.
std::string python_json_float(double v);

}  // namespace mrd::registry
