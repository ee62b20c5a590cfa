// Readable text of expressions, operations and lowered statements, close to TVM's own
// printing (e.g. `C(i, j) += (A[i, k]*B[k, j])`). For people and logs, not for parsing.
#pragma once

#include <ostream>
#include <string>

#include "common/ir/operation.h"
#include "common/ir/stmt.h"

namespace mrd::ir {

std::string to_string(const Expr& e);
/// One line defining the op, as TVM's ComputeDAG prints it: `A = PLACEHOLDER [512, 512]`,
/// `C(i, j) += (A[i, k]*B[k, j])`.
std::string op_definition(const OperationNode& op);
/// An indented loop nest.
std::string to_string(const Stmt& s);
std::string to_string(const PrimFunc& f);

std::ostream& operator<<(std::ostream& os, const Expr& e);
std::ostream& operator<<(std::ostream& os, const Stmt& s);

}  // namespace mrd::ir
