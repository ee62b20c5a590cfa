// Which allocations share memory, planned as TVM's StorageRewrite plans it
// (LinearAccessPatternFinder, LivenessAnalysis, PlanMemory):
// - The statements at each allocation's level (the loops, conditionals, lets and stores of
//   the block that holds the Allocate) form a linear sequence; an allocation is live from the
//   start of the first of them that touches it to the end of the last.
// - When a statement reads an allocation for the last time and writes another for the first
//   time in place (inplace_check.h), at most two allocations starting there, the new one
//   takes the old one's memory if both have the same size, scope and element type.
// - Otherwise a global allocation of more than 32 bits takes a freed one of its attach
//   scope (innermost parallel loop, or the function) whose size is within 16x of its own:
//   the smallest at least as large, else the largest smaller one, which then grows. Local
//   allocations and allocations of at most 32 bits never share (LLVM keeps them in
//   registers).
// TVM also lets allocations of different element types share the larger-or-equal free
// buffer; here only allocations of one element type share (the buffer IR has no
// reinterpreting views), so such an allocation gets memory of its own.
#pragma once

#include <unordered_map>

#include "common/ir/stmt.h"

namespace mrd::lower {

/// For each allocation that shares memory with others: the buffer that holds that memory
/// (the first of them when all are alike, else a flat buffer as large as the largest).
/// Allocations that keep their own memory are absent.
using StoragePlan = std::unordered_map<const ir::BufferNode*, ir::Buffer>;

StoragePlan plan_storage(const ir::Stmt& body);

}  // namespace mrd::lower
