// A read-only stream buffer over bytes the caller keeps alive, so archives read their input
// in place, and can tell how many bytes are left before trusting a declared length.
#pragma once

#include <cstddef>
#include <streambuf>
#include <string_view>

namespace mrd::serialize {

class ViewStreamBuf : public std::streambuf {
 public:
  explicit ViewStreamBuf(std::string_view bytes) {
    // The buffer is only read: with no putback area, nothing ever writes through it.
    char* p = const_cast<char*>(bytes.data());
    setg(p, p, p + bytes.size());
  }
  size_t remaining() const { return static_cast<size_t>(egptr() - gptr()); }
};

}  // namespace mrd::serialize
