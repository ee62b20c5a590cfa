#include "common/proto/frame.h"

#include "common/util/error.h"

namespace mrd::proto {
namespace {

void put(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t get(const char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

}  // namespace

std::string encode_header(const FrameHeader& h) {
  std::string out;
  out.reserve(kHeaderSize);
  put(out, h.magic, 4);
  put(out, h.version, 2);
  put(out, h.type, 2);
  put(out, h.body_length, 4);
  return out;
}

FrameHeader decode_header(const char* bytes) {
  FrameHeader h;
  h.magic = static_cast<uint32_t>(get(bytes, 4));
  h.version = static_cast<uint16_t>(get(bytes + 4, 2));
  h.type = static_cast<uint16_t>(get(bytes + 6, 2));
  h.body_length = static_cast<uint32_t>(get(bytes + 8, 4));
  return h;
}

std::string make_frame(uint16_t type, std::string_view body) {
  MRD_CHECK(body.size() <= 0xffffffffu, "frame body of ", body.size(), " bytes");
  FrameHeader h;
  h.type = type;
  h.body_length = static_cast<uint32_t>(body.size());
  std::string out = encode_header(h);
  out.append(body);
  return out;
}

}  // namespace mrd::proto
