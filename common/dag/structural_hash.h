// Structural identity of a workload's tensor list: two lists are equal when they build the
// same DAG (same ops, names, tags, types, shapes, axes and expressions, the same sharing of
// ops), whatever objects they are made of. Variables are matched by where they are bound,
// not by identity. The hash is an MD5 of a canonical serialization, so it is the same in every
// process, run and machine.
#pragma once

#include <string>
#include <vector>

#include "common/ir/operation.h"

namespace mrd::dag {

/// The canonical serialization that equality and hash are defined on (text, for debugging).
std::string canonical_form(const std::vector<ir::Tensor>& tensors);
bool structural_equal(const std::vector<ir::Tensor>& a, const std::vector<ir::Tensor>& b);
/// 32 lowercase hex digits.
std::string structural_hash(const std::vector<ir::Tensor>& tensors);

}  // namespace mrd::dag
