// A slow, direct evaluator of a lowered PrimFunc: the test oracle for lowering without a C
// compiler. Loops run serially whatever their kind; float32 values are rounded to float after
// every operation and store (as compiled float32 code computes); allocations start as NaN so
// that a read of an element never written shows in the results. An access outside a buffer is
// an InternalError (a lowering bug).
#pragma once

#include <vector>

#include "common/ir/stmt.h"

namespace mrd::interp {

/// Runs f with one flat row-major buffer per parameter (values as double).
void eval_primfunc(const ir::PrimFunc& f, std::vector<std::vector<double>*> buffers);

}  // namespace mrd::interp
