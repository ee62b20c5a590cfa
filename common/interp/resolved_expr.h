// An expression of one compute op, resolved once for the reference interpreter: each variable
// becomes a slot of the environment the op's loops fill (its axes, then its reduction axes),
// each tensor read a direct reference to the values read, and the tree a flat array of nodes
// that point at each other by index. Evaluating it walks that array with no lookups, with the
// interpreter's semantics unchanged (see reference_interpreter.h): double math, lazy select,
// if_then_else, && and ||, and the same errors at the same moment: a variable no slot binds, a
// read out of bounds or a division by zero is reported when it is evaluated, not before.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "common/interp/host_tensor.h"
#include "common/ir/expr.h"

namespace mrd::interp {

/// What an expression may read: each op's values, by op.
using TensorValues = std::unordered_map<const ir::OperationNode*, const HostTensor*>;

class ResolvedExpr {
 public:
  /// Resolves `e` with `slots[i]` bound to env[i] at evaluation (a variable bound twice takes
  /// the later slot) and reads from `tensors`. The expression's nodes and the tensors' values
  /// must outlive this.
  ResolvedExpr(const ir::Expr& e, const std::vector<const ir::VarNode*>& slots,
               const TensorValues& tensors);

  /// The value as a float (in double) or an integer, env holding one value per slot.
  double eval_f(const int64_t* env) const { return f(root_, env); }
  int64_t eval_i(const int64_t* env) const { return i(root_, env); }

  /// The most points eval_f_lanes evaluates at once, and the most slots it varies.
  static constexpr int32_t kMaxLanes = 64;
  static constexpr int32_t kMaxLaneAxes = 8;

  /// A box of points: slot axes[j].slot runs over `length` values from its value in env, the
  /// points in row-major order (the last axis fastest); count is the product of the lengths.
  struct LaneBox {
    struct Axis {
      int64_t slot;
      int32_t length;
    };
    Axis axes[kMaxLaneAxes];
    int32_t rank = 0;
    int32_t count = 1;
  };

  /// eval_f at every point of `box` (at most kMaxLanes), into out[0..box.count). Returns
  /// false, having written nothing to out and reported nothing, when the expression has a node
  /// lanes do not cover (a select, if_then_else, a comparison, a logical operator, a cast from
  /// a float to an integer, a read at an index built of one...) or when some point would read
  /// out of bounds or divide by zero: the caller then evaluates one point at a time, which
  /// reports what the interpreter reports. Lanes cover the integer arithmetic (+, -, *, the four
  /// divisions, min, max, the bitwise intrinsics and casts, each wrapped to its type as one
  /// point at a time wraps it), so an index such as floordiv(c, 8) or floormod(c, 8) of a
  /// blocked layout is read in lanes too. Every node covered is evaluated at every point one at
  /// a time too, so the results are the same.
  bool eval_f_lanes(const int64_t* env, const LaneBox& box, double* out);
  /// eval_i at every point of `box`, with eval_f_lanes' coverage and refusals; false too for an
  /// expression whose type is not an integer type.
  bool eval_i_lanes(const int64_t* env, const LaneBox& box, int64_t* out);

 private:
  struct Node {
    ir::ExprKind kind = ir::ExprKind::IntImm;
    ir::DType dtype = ir::DType::Int32;
    ir::DType operand_dtype = ir::DType::Int32;  ///< a Binary's first operand's, a Cast's value's
    uint8_t op = 0;                              ///< a Binary's BinaryOp, a Call's CallOp
    int32_t a = -1, b = -1, c = -1;  ///< operand nodes; a Call's: a = first of args_, b = count
    int64_t value = 0;        ///< an IntImm's value, a Var's slot (-1: unbound), a read's entry
    double fvalue = 0;        ///< a FloatImm's value
    bool lanes = false;       ///< eval_f_lanes covers this node and its operands
    int32_t lane_order = -1;  ///< its place in lane_order_, if eval_f_lanes evaluates it
    const ir::ExprNode* src = nullptr;  ///< for the names in messages
  };
  /// One index of a read. Built only of slots, constants, +, - and products with a constant,
  /// all of one integer type, it is evaluated as c + sum(coefficient * slot) modulo 2^bits: what
  /// wrapping each operation gives, as + and * commute with the wrap.
  struct Index {
    int32_t node = -1;  ///< the general form
    bool affine = false;
    bool wraps = false;  ///< has an operation (a lone variable or constant is not wrapped)
    ir::DType dtype = ir::DType::Int32;
    int64_t constant = 0;
    int32_t first_term = 0, terms = 0;  ///< in terms_
  };
  struct Read {
    const ir::OperationNode* op;
    const HostTensor* tensor;   ///< null when the op has no values yet
    int32_t first_index, rank;  ///< in indices_
  };
  struct Term {
    int64_t slot, coefficient;
  };

  struct Resolution;
  int32_t resolve(const ir::Expr& e, Resolution& r);
  Index resolve_index(const ir::Expr& e, Resolution& r);

  double f(int32_t n, const int64_t* env) const;
  int64_t i(int32_t n, const int64_t* env) const;
  double call_f(const Node& n, const int64_t* env) const;
  int64_t call_i(const Node& n, const int64_t* env) const;
  int64_t binary_i(const Node& n, const int64_t* env) const;
  int64_t var(const Node& n, const int64_t* env) const;
  int64_t index(const Index& x, const int64_t* env) const;
  double read(const Node& n, const int64_t* env) const;
  bool covered(const Node& n) const;
  void set_digits(const LaneBox& box);
  void order_lanes(int32_t id);
  bool run_lanes(const int64_t* env, const LaneBox& box);
  bool int_lanes(const Node& n, int32_t count, int64_t* out);
  bool read_lanes(const Node& n, const int64_t* env, const LaneBox& box, double* out);
  double* lane_doubles(int32_t id);
  int64_t* lane_ints(int32_t id);

  std::vector<Node> nodes_;
  std::vector<int32_t> args_;  ///< operands of calls, in order
  std::vector<Read> reads_;
  std::vector<Index> indices_;
  std::vector<Term> terms_;
  int32_t root_ = -1;
  /// The nodes eval_f_lanes evaluates, operands first (of reads' indices, only those that are
  /// not affine), and kMaxLanes values for each: as doubles (what f gives), and for a node of
  /// an integer type also as integers (what i gives).
  std::vector<int32_t> lane_order_;
  std::vector<double> lane_values_;
  std::vector<int64_t> lane_ints_;
  /// Each point's offset along each axis of the last box of its shape (its rank and lengths).
  int32_t digits_[kMaxLaneAxes][kMaxLanes];
  int32_t digits_rank_ = -1;
  int32_t digits_length_[kMaxLaneAxes] = {};
};

}  // namespace mrd::interp
