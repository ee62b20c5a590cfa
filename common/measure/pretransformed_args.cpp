#include "common/measure/pretransformed_args.h"

#include <cstring>
#include <stdexcept>

#include "common/ir/dtype.h"
#include "common/util/error.h"

namespace mrd::measure {

namespace {

/// dst[new flat index of ax] = src[sum(ax[i] * strides[i])] for every ax of `shape`, row-major.
void relayout(const char* src, char* dst, size_t elem, const std::vector<int64_t>& shape,
              const std::vector<int64_t>& strides) {
  const size_t rank = shape.size();
  std::vector<int64_t> ax(rank, 0);
  int64_t from = 0;
  for (int64_t to = 0;; ++to) {
    std::memcpy(dst + to * elem, src + from * elem, elem);
    // The next index, last axis fastest, keeping the source offset in step.
    size_t d = rank;
    while (d > 0) {
      --d;
      if (++ax[d] < shape[d]) {
        from += strides[d];
        break;
      }
      from -= strides[d] * (shape[d] - 1);
      ax[d] = 0;
      if (d == 0) return;
    }
    if (rank == 0) return;
  }
}

}  // namespace

PreTransformedArgs::PreTransformedArgs(const HostArgs& args,
                                       const std::vector<lower::PreTransformedInput>& layouts) {
  pointers_.assign(args.pointers(), args.pointers() + args.size());
  for (const lower::PreTransformedInput& in : layouts) {
    MRD_CHECK(in.tensor_index < pointers_.size() && in.shape.size() == in.source_strides.size(),
              "pre-transformed input ", in.tensor_index, " has no argument");
    size_t pos = in.tensor_index;
    int64_t elements = 1, last = 0;
    for (size_t i = 0; i < in.shape.size(); ++i) {
      MRD_CHECK(in.shape[i] > 0 && in.source_strides[i] >= 0, "bad layout of input ", pos);
      elements *= in.shape[i];
      last += (in.shape[i] - 1) * in.source_strides[i];
    }
    if (elements != args.elements(pos) || last >= args.elements(pos)) {
      throw std::runtime_error(str_cat("the rewritten layout of argument ", pos,
                                       " does not cover its ", args.elements(pos), " elements"));
    }
    uint64_t bytes = args.bytes(pos);
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p)
      throw std::runtime_error(
          str_cat("cannot allocate ", bytes, " bytes for the re-laid-out argument ", pos));
    copies_.emplace_back(p);
    copy_bytes_.push_back(bytes);
    relayout(static_cast<const char*>(args.pointers()[pos]), static_cast<char*>(p),
             static_cast<size_t>(ir::dtype_bytes(args.dtype(pos))), in.shape, in.source_strides);
    pointers_[pos] = p;
  }
}

void PreTransformedArgs::flush() const {
  for (size_t i = 0; i < copies_.size(); ++i) flush_from_caches(copies_[i].get(), copy_bytes_[i]);
}

}  // namespace mrd::measure
