// Statements of the lowered loop IR and the PrimFunc that holds them (TVM's TIR, reduced to
// what CPU schedules need). Same conventions as expr.h: one macro lists every node, nodes are
// immutable, built by make().
#pragma once

#include <string>
#include <vector>

#include "common/ir/expr.h"

namespace mrd::ir {

#define MRD_STMT_NODES(X) \
  X(For)                  \
  X(Allocate)             \
  X(Store)                \
  X(IfThenElse)           \
  X(Seq)                  \
  X(Let)

enum class StmtKind : uint8_t {
#define MRD_ENUM_ENTRY(name) name,
  MRD_STMT_NODES(MRD_ENUM_ENTRY)
#undef MRD_ENUM_ENTRY
};

enum class MemScope : uint8_t { Global, Local };

/// A buffer: a function parameter (bound to an argument tensor) or an allocation. Its name is
/// for printing only; generated code names buffers by position.
struct BufferNode {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  MemScope scope = MemScope::Global;

  static Buffer make(std::string name, DType dtype, std::vector<int64_t> shape,
                     MemScope scope = MemScope::Global);
  int64_t num_elements() const;
};

struct StmtNode;
class Stmt {
 public:
  Stmt() = default;
  Stmt(std::shared_ptr<const StmtNode> node) : node_(std::move(node)) {}
  const StmtNode* get() const { return node_.get(); }
  const StmtNode* operator->() const { return node_.get(); }
  bool defined() const { return node_ != nullptr; }
  bool same_as(const Stmt& other) const { return node_ == other.node_; }
  template <typename T>
  const T* as() const;

 private:
  std::shared_ptr<const StmtNode> node_;
};

struct StmtNode {
  StmtKind kind;

 protected:
  explicit StmtNode(StmtKind k) : kind(k) {}
};

template <typename T>
const T* Stmt::as() const {
  return node_ && node_->kind == T::kKind ? static_cast<const T*>(node_.get()) : nullptr;
}

/// Serial, or annotated by a schedule: parallel (threads), vectorized (SIMD lanes) or
/// unrolled.
enum class ForKind : uint8_t { Serial, Parallel, Vectorized, Unrolled };
std::string_view for_kind_name(ForKind k);

/// for (var = min; var < min + extent; ++var) body.
struct ForNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::For;
  Var var;
  Expr min, extent;
  ForKind for_kind;
  Stmt body;
  /// pragma auto_unroll_max_step of this loop nest, or -1 when none was given.
  int64_t auto_unroll_max_step = -1;
  static Stmt make(Var var, Expr min, Expr extent, ForKind kind, Stmt body,
                   int64_t auto_unroll_max_step = -1);
  ForNode(Var v, Expr mn, Expr ext, ForKind k, Stmt b, int64_t unroll)
      : StmtNode(kKind), var(std::move(v)), min(std::move(mn)), extent(std::move(ext)),
        for_kind(k), body(std::move(b)), auto_unroll_max_step(unroll) {}
};

/// Storage for `buffer` (its shape gives the size) that lives while `body` runs.
struct AllocateNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Allocate;
  Buffer buffer;
  Stmt body;
  static Stmt make(Buffer buffer, Stmt body);
  AllocateNode(Buffer b, Stmt s) : StmtNode(kKind), buffer(std::move(b)), body(std::move(s)) {}
};

/// buffer[indices] = value.
struct StoreNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Store;
  Buffer buffer;
  std::vector<Expr> indices;
  Expr value;
  static Stmt make(Buffer buffer, std::vector<Expr> indices, Expr value);
  StoreNode(Buffer b, std::vector<Expr> i, Expr v)
      : StmtNode(kKind), buffer(std::move(b)), indices(std::move(i)), value(std::move(v)) {}
};

/// if (cond) then_case else else_case; else_case may be undefined.
struct IfThenElseNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::IfThenElse;
  Expr cond;
  Stmt then_case, else_case;
  static Stmt make(Expr cond, Stmt then_case, Stmt else_case = Stmt());
  IfThenElseNode(Expr c, Stmt t, Stmt e)
      : StmtNode(kKind), cond(std::move(c)), then_case(std::move(t)), else_case(std::move(e)) {}
};

/// Statements run one after another.
struct SeqNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Seq;
  std::vector<Stmt> stmts;
  /// Flattens nested sequences; a single statement is returned as is.
  static Stmt make(std::vector<Stmt> stmts);
  explicit SeqNode(std::vector<Stmt> s) : StmtNode(kKind), stmts(std::move(s)) {}
};

/// Binds var to value within body.
struct LetNode : StmtNode {
  static constexpr StmtKind kKind = StmtKind::Let;
  Var var;
  Expr value;
  Stmt body;
  static Stmt make(Var var, Expr value, Stmt body);
  LetNode(Var v, Expr x, Stmt b)
      : StmtNode(kKind), var(std::move(v)), value(std::move(x)), body(std::move(b)) {}
};

/// A lowered function: one buffer per argument tensor, in the workload's tensor order.
struct PrimFunc {
  std::vector<Buffer> params;
  Stmt body;
};

}  // namespace mrd::ir
