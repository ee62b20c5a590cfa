#include "common/measure/task.h"

#include <cstdint>
#include <cstring>

#include "common/registry/workload_codec.h"
#include "common/serialize/decode_error.h"
#include "common/util/error.h"

namespace mrd::measure {
namespace {

using serialize::DecodeErrc;
using serialize::DecodeError;

constexpr std::string_view kMagic = "MRDT";
constexpr uint8_t kVersion = 2;

template <typename T>
void put(std::string& out, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<char>((uint64_t(v) >> (8 * i)) & 0xff));
}

class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  template <typename T>
  T get(const char* what) {
    need(sizeof(T), what);
    uint64_t v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) v |= uint64_t(static_cast<uint8_t>(b_[pos_ + i])) << (8 * i);
    pos_ += sizeof(T);
    return static_cast<T>(v);
  }
  std::string_view bytes(uint64_t n, const char* what) {
    need(n, what);
    std::string_view s = b_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  bool done() const { return pos_ == b_.size(); }

 private:
  void need(uint64_t n, const char* what) {
    if (n > b_.size() - pos_) throw DecodeError(DecodeErrc::Truncated, str_cat("task: truncated ", what));
  }
  std::string_view b_;
  size_t pos_ = 0;
};

int checked_int(int32_t v, int lo, int hi, const char* what) {
  if (v < lo || v > hi) {
    throw DecodeError(DecodeErrc::Malformed, str_cat("task: ", what, " ", v, " is outside [", lo, ", ", hi, "]"));
  }
  return v;
}

}  // namespace

std::string task_to_binary(const Task& task) {
  std::string out(kMagic);
  put<uint8_t>(out, kVersion);
  put<uint32_t>(out, static_cast<uint32_t>(task.target.size()));
  out += task.target;
  put<int32_t>(out, task.hardware.num_cores);
  put<int32_t>(out, task.hardware.vector_unit_bytes);
  put<int32_t>(out, task.hardware.cache_line_bytes);
  put<uint8_t>(out, static_cast<uint8_t>(task.layout_rewrite_option));
  std::string w = registry::workload_to_binary(task.workload);
  put<uint64_t>(out, w.size());
  out += w;
  return out;
}

Task task_from_binary(std::string_view bytes, const serialize::Limits& limits) {
  if (bytes.size() > limits.max_input_bytes) {
    throw DecodeError(DecodeErrc::TooLarge, str_cat("task: ", bytes.size(), " bytes exceed the limit of ",
                                                    limits.max_input_bytes));
  }
  Reader r(bytes);
  if (bytes.size() < kMagic.size() || bytes.substr(0, kMagic.size()) != kMagic) {
    throw DecodeError(DecodeErrc::BadMagic, "task: not a measurerd task (bad magic)");
  }
  r.bytes(kMagic.size(), "magic");
  uint8_t version = r.get<uint8_t>("version");
  if (version != kVersion && version != 1) {
    throw DecodeError(DecodeErrc::BadVersion, str_cat("task: format version ", int(version),
                                                      " is not supported (this build reads ", int(kVersion), ")"));
  }
  Task t;
  uint32_t target_len = r.get<uint32_t>("target length");
  if (target_len > kMaxTargetBytes) {
    throw DecodeError(DecodeErrc::TooLarge, str_cat("task: target of ", target_len, " bytes exceeds ", kMaxTargetBytes));
  }
  t.target = std::string(r.bytes(target_len, "target"));
  t.hardware.num_cores = checked_int(r.get<int32_t>("num_cores"), 0, kMaxCores, "num_cores");
  t.hardware.vector_unit_bytes = checked_int(r.get<int32_t>("vector_unit_bytes"), 0, 1 << 16, "vector_unit_bytes");
  t.hardware.cache_line_bytes = checked_int(r.get<int32_t>("cache_line_bytes"), 0, 1 << 16, "cache_line_bytes");
  t.layout_rewrite_option = version == 1 ? 0 : checked_int(r.get<uint8_t>("layout_rewrite_option"), 0, 2, "layout_rewrite_option");
  uint64_t wlen = r.get<uint64_t>("workload length");
  t.workload = registry::workload_from_binary(r.bytes(wlen, "workload"), limits);
  if (!r.done()) throw DecodeError(DecodeErrc::Malformed, "task: trailing bytes after the workload");
  return t;
}

}  // namespace mrd::measure
