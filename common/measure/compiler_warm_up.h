// A worker's first LLVM compile pays for what the process has not touched yet: the pass
// pipeline and the code generator come in page by page, their registries and tables fill
// (~20 ms more than the next compile). Run at worker start, warm_up_llvm builds one small
// built-in candidate (a vectorized, unrolled matmul 64) through the real path — lower, print,
// compile — in a throwaway cache, so that this cost is paid once before the first job and not
// charged to its candidate. The C backend needs none: gcc is a fresh process every time.
#pragma once

#include <string>

namespace mrd::measure {

/// Builds the warm-up candidate for `target` when it is an LLVM target; the artifact and its
/// cache are removed. Returns the seconds it took, 0 for other targets, or a negative value
/// when it did not build (logged: the first candidate then pays the cost, nothing else changes).
double warm_up_llvm(const std::string& target);

}  // namespace mrd::measure
