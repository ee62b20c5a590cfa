#include "common/measure/host_args.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "common/util/error.h"

namespace mrd::measure {
namespace {

template <typename T>
void fill_from(void* dst, int64_t n, interp::InputValues& values) {
  T* p = static_cast<T*>(dst);
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(values.next());
}

}  // namespace

void FreeArgument::operator()(void* p) const { std::free(p); }

ArgumentBuffer allocate_argument(uint64_t bytes, size_t pos) {
  void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!p) throw std::runtime_error(str_cat("cannot allocate ", bytes, " bytes for argument ", pos));
  return ArgumentBuffer(p);
}

HostArgs::HostArgs(const dag::ComputeDAG& dag) {
  uint64_t total = 0;
  for (const ir::Tensor& t : dag.tensors()) {
    uint64_t n = 1;
    for (int64_t d : t->shape) {
      if (d <= 0 || n > kMaxArgumentBytes / uint64_t(d)) throw std::runtime_error("argument too large");
      n *= uint64_t(d);
    }
    uint64_t bytes = n * uint64_t(ir::dtype_bytes(t->dtype));
    total += bytes;
    if (total > kMaxArgumentBytes) {
      throw std::runtime_error(str_cat("the arguments need more than ", kMaxArgumentBytes, " bytes"));
    }
    elements_.push_back(static_cast<int64_t>(n));
    bytes_.push_back(bytes);
    dtypes_.push_back(t->dtype);
  }
  for (size_t pos = 0; pos < dag.tensors().size(); ++pos) {
    const ir::Tensor& t = dag.tensors()[pos];
    buffers_.push_back(allocate_argument(bytes_[pos], pos));
    void* p = buffers_.back().get();
    pointers_.push_back(p);
    spdlog::debug("argument {}: {} bytes at {} (page offset {})", pos, bytes_[pos], p,
                  reinterpret_cast<uintptr_t>(p) % 4096);
    if (t->is_placeholder()) {
      input_positions_.push_back(pos);
      input_tensors_.push_back(t);
      // The values interp::make_input gives this placeholder, written straight into the buffer.
      interp::InputValues values(t->dtype, /*seed=*/pos + 1);
      int64_t n = elements_[pos];
      switch (t->dtype) {
        case ir::DType::Float32: fill_from<float>(p, n, values); break;
        case ir::DType::Float64: fill_from<double>(p, n, values); break;
        case ir::DType::Int32: fill_from<int32_t>(p, n, values); break;
        case ir::DType::Int64: fill_from<int64_t>(p, n, values); break;
        case ir::DType::Int8: fill_from<int8_t>(p, n, values); break;
        case ir::DType::UInt8: fill_from<uint8_t>(p, n, values); break;
        case ir::DType::Int16: fill_from<int16_t>(p, n, values); break;
        case ir::DType::UInt16: fill_from<uint16_t>(p, n, values); break;
        case ir::DType::UInt32: fill_from<uint32_t>(p, n, values); break;
        case ir::DType::Bool: fill_from<uint8_t>(p, n, values); break;
      }
    } else {
      outputs_.push_back(pos);
    }
  }
  reset_outputs();
  input_digest_ = digest_inputs();
}

void HostArgs::reset_outputs() {
  for (size_t pos : outputs_) {
    void* p = pointers_[pos];
    int64_t n = elements_[pos];
    switch (dtypes_[pos]) {
      case ir::DType::Float32: std::fill_n(static_cast<float*>(p), n, std::numeric_limits<float>::quiet_NaN()); break;
      case ir::DType::Float64: std::fill_n(static_cast<double*>(p), n, std::numeric_limits<double>::quiet_NaN()); break;
      default: std::memset(p, 0x5a, bytes_[pos]); break;
    }
  }
}

uint64_t HostArgs::digest_inputs() const {
  // FNV-1a over 8-byte words (the tail byte by byte): cheap next to a fill, and any change
  // of an input's bytes changes it but for a vanishing chance.
  constexpr uint64_t kPrime = 1099511628211ull;
  uint64_t h = 14695981039346656037ull;
  for (size_t pos : input_positions_) {
    const unsigned char* p = static_cast<const unsigned char*>(pointers_[pos]);
    uint64_t n = bytes_[pos], off = 0;
    for (; off + 8 <= n; off += 8) {
      uint64_t w;
      std::memcpy(&w, p + off, 8);
      h = (h ^ w) * kPrime;
    }
    for (; off < n; ++off) h = (h ^ p[off]) * kPrime;
    h = (h ^ pos) * kPrime;
  }
  return h;
}

bool HostArgs::inputs_unchanged() const { return digest_inputs() == input_digest_; }

const std::vector<interp::HostTensor>& HostArgs::inputs() const {
  if (!inputs_) {
    std::vector<interp::HostTensor> in;
    for (size_t k = 0; k < input_tensors_.size(); ++k)
      in.push_back(interp::make_input(*input_tensors_[k].op(), /*seed=*/input_positions_[k] + 1));
    inputs_ = std::move(in);
  }
  return *inputs_;
}

double HostArgs::value(size_t pos, int64_t i) const {
  const void* p = pointers_[pos];
  switch (dtypes_[pos]) {
    case ir::DType::Float32: return static_cast<const float*>(p)[i];
    case ir::DType::Float64: return static_cast<const double*>(p)[i];
    case ir::DType::Int32: return static_cast<const int32_t*>(p)[i];
    case ir::DType::Int64: return double(static_cast<const int64_t*>(p)[i]);
    case ir::DType::Int8: return static_cast<const int8_t*>(p)[i];
    case ir::DType::UInt8: return static_cast<const uint8_t*>(p)[i];
    case ir::DType::Int16: return static_cast<const int16_t*>(p)[i];
    case ir::DType::UInt16: return static_cast<const uint16_t*>(p)[i];
    case ir::DType::UInt32: return static_cast<const uint32_t*>(p)[i];
    case ir::DType::Bool: return static_cast<const uint8_t*>(p)[i];
  }
  return 0;
}

void HostArgs::perturb(size_t pos, int64_t i, double delta) {
  void* p = pointers_[pos];
  switch (dtypes_[pos]) {
    case ir::DType::Float32: static_cast<float*>(p)[i] += float(delta); break;
    case ir::DType::Float64: static_cast<double*>(p)[i] += delta; break;
    case ir::DType::Int32: static_cast<int32_t*>(p)[i] += int32_t(delta); break;
    case ir::DType::Int64: static_cast<int64_t*>(p)[i] += int64_t(delta); break;
    case ir::DType::Int8: static_cast<int8_t*>(p)[i] += static_cast<int8_t>(delta); break;
    case ir::DType::UInt8: static_cast<uint8_t*>(p)[i] += static_cast<uint8_t>(delta); break;
    case ir::DType::Int16: static_cast<int16_t*>(p)[i] += static_cast<int16_t>(delta); break;
    case ir::DType::UInt16: static_cast<uint16_t*>(p)[i] += static_cast<uint16_t>(delta); break;
    case ir::DType::UInt32: static_cast<uint32_t*>(p)[i] += static_cast<uint32_t>(delta); break;
    case ir::DType::Bool: static_cast<uint8_t*>(p)[i] ^= 1; break;
  }
}

void HostArgs::flush_inputs() const {
  for (size_t pos : input_positions_) flush_from_caches(pointers_[pos], bytes_[pos]);
}

void flush_from_caches(const void* p, uint64_t bytes) {
#if defined(__x86_64__) || defined(__i386__)
  const char* c = static_cast<const char*>(p);
  for (uint64_t off = 0; off < bytes; off += 64) _mm_clflush(c + off);
  _mm_mfence();
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace mrd::measure
