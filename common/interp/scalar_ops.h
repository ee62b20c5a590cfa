// The interpreters' view of the IR's scalar operators. The definitions live with the IR
// (scalar_semantics), where lowering's constant folding uses the same ones; this header
// brings them into mrd::interp so that both interpreters name them unqualified.
#pragma once

#include "common/ir/scalar_semantics.h"

namespace mrd::interp {

using ir::combine_op;
using ir::float_binary;
using ir::float_call;
using ir::float_to_int;
using ir::floor_div;
using ir::floor_mod;
using ir::int_binary;
using ir::int_call;
using ir::is_division;
using ir::store_value;
using ir::wrap_int;

}  // namespace mrd::interp
