// A tensor's values as the reference interpreter holds them.
#pragma once

#include <cstdint>
#include <vector>

#include "common/ir/dtype.h"

namespace mrd::interp {

/// A dense row-major tensor on the host; every value held as a double.
struct HostTensor {
  ir::DType dtype = ir::DType::Float32;
  std::vector<int64_t> shape;
  std::vector<double> data;
};

}  // namespace mrd::interp
