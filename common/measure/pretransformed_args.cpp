#include "common/measure/pretransformed_args.h"

#include <cstring>
#include <stdexcept>

#include "common/ir/dtype.h"
#include "common/util/error.h"

namespace mrd::measure {

namespace {

/// dst[new flat index of ax] = src[sum(ax[i] * strides[i])] for every ax of `shape`, row-major.
void relayout(const char* src, char* dst, size_t elem, const std::vector<int64_t>& shape,
              const std::vector<int64_t>& strides, int64_t elements) {
  std::vector<int64_t> ax(shape.size(), 0);
  int64_t from = 0;
  for (int64_t to = 0; to < elements; ++to) {
    std::memcpy(dst + to * elem, src + from * elem, elem);
    // The next index, last axis fastest, keeping the source offset in step.
    for (size_t d = shape.size(); d-- > 0;) {
      if (++ax[d] < shape[d]) {
        from += strides[d];
        break;
      }
      from -= strides[d] * (shape[d] - 1);
      ax[d] = 0;
    }
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
    Copy copy{allocate_argument(args.bytes(pos), pos), args.bytes(pos)};
    void* p = copy.data.get();
    relayout(static_cast<const char*>(args.pointers()[pos]), static_cast<char*>(p),
             static_cast<size_t>(ir::dtype_bytes(args.dtype(pos))), in.shape, in.source_strides,
             elements);
    copies_.push_back(std::move(copy));
    pointers_[pos] = p;
  }
}

void PreTransformedArgs::flush() const {
  for (const Copy& c : copies_) flush_from_caches(c.data.get(), c.bytes);
}

}  // namespace mrd::measure
