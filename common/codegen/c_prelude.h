// The text every generated C unit starts with: the standard headers, floor division and
// modulo with floor semantics for negative operands, min/max that evaluate each operand once,
// the logistic function, integer abs, the 64-byte aligned heap allocation, and the GCC vector
// types with their unaligned loads and stores, broadcasts, lane-wise selects, min and max.
#pragma once

namespace mrd::codegen {

/// The prelude, up to and including its last newline.
extern const char* const kCPrelude;

}  // namespace mrd::codegen
