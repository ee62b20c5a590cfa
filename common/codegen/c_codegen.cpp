#include "common/codegen/c_codegen.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <unordered_map>

#include "common/ir/expr_functor.h"
#include "common/ir/stmt_functor.h"
#include "common/util/error.h"

namespace mrd::codegen {
namespace {

using namespace ir;

// Helpers every unit carries: floor division with floor semantics for negative operands,
// min/max that evaluate each operand once, the logistic function.
constexpr const char* kPrelude = R"(#include <stdint.h>
#include <stdlib.h>
#include <math.h>

#define MRD_DEF_FLOOR(T, S) \
  static inline T mrd_floordiv_##S(T a, T b) { T q = a / b; T r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q; } \
  static inline T mrd_floormod_##S(T a, T b) { T r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
MRD_DEF_FLOOR(int32_t, i32)
MRD_DEF_FLOOR(int64_t, i64)
#define MRD_DEF_MINMAX(T, S) \
  static inline T mrd_min_##S(T a, T b) { return a < b ? a : b; } \
  static inline T mrd_max_##S(T a, T b) { return a > b ? a : b; }
MRD_DEF_MINMAX(int32_t, i32)
MRD_DEF_MINMAX(int64_t, i64)
MRD_DEF_MINMAX(float, f32)
MRD_DEF_MINMAX(double, f64)
MRD_DEF_MINMAX(uint8_t, b)
static inline float mrd_sigmoid_f32(float x) { return 1.0f / (1.0f + expf(-x)); }
static inline double mrd_sigmoid_f64(double x) { return 1.0 / (1.0 + exp(-x)); }
static inline int32_t mrd_abs_i32(int32_t x) { return x < 0 ? -x : x; }
static inline int64_t mrd_abs_i64(int64_t x) { return x < 0 ? -x : x; }
static inline void* mrd_alloc(size_t bytes) { return aligned_alloc(64, (bytes + 63) / 64 * 64); }
)";

const char* c_type(DType t) {
  switch (t) {
    case DType::Bool: return "uint8_t";
    case DType::Int32: return "int32_t";
    case DType::Int64: return "int64_t";
    case DType::Float32: return "float";
    case DType::Float64: return "double";
  }
  return "void";
}

const char* suffix(DType t) {
  switch (t) {
    case DType::Bool: return "b";
    case DType::Int32: return "i32";
    case DType::Int64: return "i64";
    case DType::Float32: return "f32";
    case DType::Float64: return "f64";
  }
  return "";
}

std::string sanitize(const std::string& name) {
  std::string out;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out += ok ? c : '_';
  }
  return out.substr(0, 64);
}

std::string int_literal(DType t, int64_t v) {
  if (t == DType::Bool) return v ? "1" : "0";
  if (t == DType::Int64) {
    if (v == std::numeric_limits<int64_t>::min()) return "(-INT64_C(9223372036854775807) - 1)";
    return str_cat("INT64_C(", v, ")");
  }
  if (v == std::numeric_limits<int32_t>::min()) return "(-2147483647 - 1)";
  return v < 0 ? str_cat("(", v, ")") : std::to_string(v);
}

std::string float_literal(DType t, double v) {
  bool f32 = t == DType::Float32;
  if (std::isnan(v)) return f32 ? "((float)NAN)" : "((double)NAN)";
  if (std::isinf(v)) {
    const char* s = v > 0 ? "INFINITY" : "(-INFINITY)";
    return f32 ? str_cat("((float)", s, ")") : str_cat("((double)", s, ")");
  }
  char buf[64];
  if (f32) {
    std::snprintf(buf, sizeof buf, "%af", static_cast<double>(static_cast<float>(v)));
  } else {
    std::snprintf(buf, sizeof buf, "%a", v);
  }
  return str_cat("(", buf, ")");
}

const char* math_name(CallOp op) {
  switch (op) {
    case CallOp::Exp: return "exp";
    case CallOp::Log: return "log";
    case CallOp::Sqrt: return "sqrt";
    case CallOp::Tanh: return "tanh";
    case CallOp::Pow: return "pow";
    case CallOp::Fabs: return "fabs";
    default: return nullptr;
  }
}

class CEmitter : public ExprFunctor<std::string> {
 public:
  std::string run(const PrimFunc& f) {
    os_ << kPrelude << "\n";
    os_ << "int32_t mrd_entry(void* const* args) {\n";
    os_ << "  volatile int32_t mrd_err = 0;\n";
    for (size_t i = 0; i < f.params.size(); ++i) {
      const Buffer& b = f.params[i];
      std::string name = buffer_name(b);
      os_ << "  " << c_type(b->dtype) << "* restrict " << name << " = (" << c_type(b->dtype)
          << "*)__builtin_assume_aligned(args[" << i << "], 64);  /* " << sanitize(b->name)
          << " " << dtype_name(b->dtype) << shape_text(b->shape) << " */\n";
    }
    if (f.body.defined()) emit_stmt(f.body, 1);
    os_ << "  return mrd_err;\n}\n";
    return os_.str();
  }

 private:
  std::ostringstream os_;
  std::unordered_map<const BufferNode*, std::string> buffers_;
  std::unordered_map<const ExprNode*, std::string> vars_;
  /// Variables known to be >= 0 where they are in scope (loops from a non-negative start,
  /// lets of non-negative values).
  std::unordered_map<const ExprNode*, bool> nonneg_;
  int next_var_ = 0;
  /// Copies of the vectorized loops below made by the unroll pragmas emitted so far above.
  int64_t vector_copies_ = 1;
  static constexpr int64_t kMaxVectorLoopCopies = 16;
  int next_buffer_ = 0;

  static std::string shape_text(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += str_cat(i ? ", " : "", shape[i]);
    return s + "]";
  }

  std::string buffer_name(const Buffer& b) {
    auto it = buffers_.find(b.get());
    if (it != buffers_.end()) return it->second;
    std::string name = str_cat("b", next_buffer_++);
    buffers_.emplace(b.get(), name);
    return name;
  }

  std::string bind_var(const Var& v) {
    std::string name = str_cat("v", next_var_++);
    vars_[v.get()] = name;
    return name;
  }

  // Restores the binding a variable had before a loop or let rebound it.
  struct Scope {
    CEmitter& e;
    const ExprNode* var;
    bool had = false, old_nonneg = false;
    std::string old;
    Scope(CEmitter& em, const Var& v) : e(em), var(v.get()) {
      auto it = e.vars_.find(var);
      if (it != e.vars_.end()) had = true, old = it->second, old_nonneg = e.nonneg_[var];
    }
    ~Scope() {
      if (had) {
        e.vars_[var] = old;
        e.nonneg_[var] = old_nonneg;
      } else {
        e.vars_.erase(var);
        e.nonneg_.erase(var);
      }
    }
  };

  static void indent(std::ostream& os, int depth) {
    for (int i = 0; i < depth; ++i) os << "  ";
  }

  // True when integer expression e is provably >= 0.
  bool non_negative(const Expr& e) const {
    if (const int64_t* c = as_const_int(e)) return *c >= 0;
    if (e.as<VarNode>()) {
      auto it = nonneg_.find(e.get());
      return it != nonneg_.end() && it->second;
    }
    if (const auto* b = e.as<BinaryNode>()) {
      if (!is_int(b->dtype)) return false;
      switch (b->op) {
        case BinaryOp::Add:
        case BinaryOp::Mul:
        case BinaryOp::Min:
        case BinaryOp::Max:
          return non_negative(b->a) && non_negative(b->b);
        case BinaryOp::FloorDiv:
        case BinaryOp::Div:
        case BinaryOp::FloorMod:
          return non_negative(b->a) && positive_const(b->b);
        default:
          return false;
      }
    }
    return false;
  }
  static bool positive_const(const Expr& e) {
    const int64_t* c = as_const_int(e);
    return c && *c > 0;
  }

  // Row-major flat index of `indices` into `b` (a single index is used as is).
  std::string flat_index(const Buffer& b, const std::vector<Expr>& indices) {
    MRD_CHECK(!indices.empty(), "buffer access without an index");
    if (indices.size() == 1) return visit(indices[0]);
    MRD_CHECK(indices.size() == b->shape.size(), "buffer access with ", indices.size(),
              " indices into a buffer of rank ", b->shape.size());
    std::string s = visit(indices[0]);
    for (size_t d = 1; d < indices.size(); ++d) {
      s = str_cat("((int64_t)", s, " * INT64_C(", b->shape[d], ") + ", visit(indices[d]), ")");
    }
    return s;
  }

  // ---- statements --------------------------------------------------------------------------

  static bool contains_vectorized(const Stmt& s) {
    struct Finder : StmtVisitor {
      bool found = false;
      void visit_(const ForNode* op, const Stmt& self) override {
        if (op->for_kind == ForKind::Vectorized) found = true;
        StmtVisitor::visit_(op, self);
      }
    } f;
    f.visit(s);
    return f.found;
  }

  // True when every store below `s` indexes with `v` outside of floordiv/floormod, so the
  // iterations of a loop over `v` write distinct elements and `omp simd` is safe.
  static bool stores_vary_with(const Stmt& s, const ExprNode* v) {
    struct Checker : StmtVisitor {
      const ExprNode* var;
      bool ok = true;
      void visit_(const StoreNode* op, const Stmt& self) override {
        bool uses = false, hidden = false;
        for (const Expr& idx : op->indices) {
          post_order_visit(idx, [&](const Expr& e) {
            if (e.get() == var) uses = true;
            if (const auto* b = e.as<BinaryNode>()) {
              if (b->op == BinaryOp::FloorDiv || b->op == BinaryOp::FloorMod || b->op == BinaryOp::Div) {
                post_order_visit(b->a, [&](const Expr& x) { hidden = hidden || x.get() == var; });
              }
            }
          });
        }
        if (!uses || hidden) ok = false;
        StmtVisitor::visit_(op, self);
      }
    } checker;
    checker.var = v;
    checker.visit(s);
    return checker.ok;
  }

  void emit_stmt(const Stmt& s, int depth) {
    switch (s->kind) {
      case StmtKind::For: emit_for(s.as<ForNode>(), depth); break;
      case StmtKind::Allocate: emit_allocate(s.as<AllocateNode>(), depth); break;
      case StmtKind::Store: {
        const auto* op = s.as<StoreNode>();
        indent(os_, depth);
        os_ << buffer_name(op->buffer) << "[" << flat_index(op->buffer, op->indices)
            << "] = " << visit(op->value) << ";\n";
        break;
      }
      case StmtKind::IfThenElse: {
        const auto* op = s.as<IfThenElseNode>();
        indent(os_, depth);
        os_ << "if (" << visit(op->cond) << ") {\n";
        emit_stmt(op->then_case, depth + 1);
        if (op->else_case.defined()) {
          indent(os_, depth);
          os_ << "} else {\n";
          emit_stmt(op->else_case, depth + 1);
        }
        indent(os_, depth);
        os_ << "}\n";
        break;
      }
      case StmtKind::Seq:
        for (const Stmt& x : s.as<SeqNode>()->stmts) emit_stmt(x, depth);
        break;
      case StmtKind::Let: {
        const auto* op = s.as<LetNode>();
        std::string value = visit(op->value);
        Scope scope(*this, op->var);
        bool nonneg = is_int(op->var->dtype) && non_negative(op->value);
        indent(os_, depth);
        os_ << "{\n";
        indent(os_, depth + 1);
        os_ << "const " << c_type(op->var->dtype) << " " << bind_var(op->var) << " = " << value
            << ";\n";
        nonneg_[op->var.get()] = nonneg;
        emit_stmt(op->body, depth + 1);
        indent(os_, depth);
        os_ << "}\n";
        break;
      }
    }
  }

  void emit_for(const ForNode* op, int depth) {
    std::string lo = visit(op->min);
    std::string ext = visit(op->extent);
    const int64_t* cmin = as_const_int(op->min);
    const int64_t* cext = as_const_int(op->extent);
    const char* t = c_type(op->var->dtype);
    std::string hi = (cmin && *cmin == 0) ? ext : str_cat("(", lo, " + ", ext, ")");
    Scope scope(*this, op->var);
    const int64_t copies_before = vector_copies_;
    bool nonneg = non_negative(op->min);
    std::string v = bind_var(op->var);
    nonneg_[op->var.get()] = nonneg;

    switch (op->for_kind) {
      case ForKind::Parallel:
        indent(os_, depth);
        os_ << "#pragma omp parallel for schedule(static)\n";
        break;
      case ForKind::Vectorized:
        indent(os_, depth);
        if (stores_vary_with(op->body, op->var.get())) {
          os_ << "#pragma omp simd\n";
        } else {
          os_ << "/* vectorize: a store does not vary with the lane; left to the compiler */\n";
        }
        break;
      case ForKind::Unrolled:
        // GCC unrolls at a pragma before it vectorizes, so each copy of a vectorized loop
        // below is vectorized on its own: a few copies help (accumulators in registers), many
        // cost seconds of compile time. Past kMaxVectorLoopCopies the compiler's own
        // unrolling, which runs after its vectorizer, is left to do it.
        if (cext && *cext > 1 && *cext <= 65534) {
          bool vec = contains_vectorized(op->body);
          if (!vec || vector_copies_ * *cext <= kMaxVectorLoopCopies) {
            if (vec) vector_copies_ *= *cext;
            indent(os_, depth);
            os_ << "#pragma GCC unroll " << *cext << "\n";
          }
        }
        break;
      case ForKind::Serial:
        break;
    }
    indent(os_, depth);
    os_ << "for (" << t << " " << v << " = " << lo << "; " << v << " < " << hi << "; ++" << v
        << ") {\n";
    emit_stmt(op->body, depth + 1);
    vector_copies_ = copies_before;
    indent(os_, depth);
    os_ << "}\n";
  }

  void emit_allocate(const AllocateNode* op, int depth) {
    const Buffer& b = op->buffer;
    int64_t n = 1;
    for (int64_t d : b->shape) {
      MRD_CHECK(d >= 0, "negative allocation extent");
      MRD_CHECK(d == 0 || n <= std::numeric_limits<int64_t>::max() / 64 / d,
                "allocation size overflows");
      n *= d;
    }
    if (n < 1) n = 1;
    int64_t bytes = n * dtype_bytes(b->dtype);
    std::string name = buffer_name(b);
    const char* t = c_type(b->dtype);
    indent(os_, depth);
    os_ << "{  /* " << sanitize(b->name) << " " << dtype_name(b->dtype) << shape_text(b->shape)
        << " */\n";
    if (bytes <= kMaxStackAllocationBytes) {
      indent(os_, depth + 1);
      os_ << t << " " << name << "[" << n << "] __attribute__((aligned(64)));\n";
      emit_stmt(op->body, depth + 1);
    } else {
      indent(os_, depth + 1);
      os_ << t << "* restrict " << name << " = (" << t << "*)mrd_alloc((size_t)INT64_C(" << bytes
          << "));\n";
      indent(os_, depth + 1);
      os_ << "if (" << name << ") {\n";
      emit_stmt(op->body, depth + 2);
      indent(os_, depth + 2);
      os_ << "free(" << name << ");\n";
      indent(os_, depth + 1);
      os_ << "} else {\n";
      indent(os_, depth + 2);
      os_ << "mrd_err = 1;\n";
      indent(os_, depth + 1);
      os_ << "}\n";
    }
    indent(os_, depth);
    os_ << "}\n";
  }

  // ---- expressions -------------------------------------------------------------------------

  std::string visit_(const IntImmNode* op, const Expr&) override {
    return int_literal(op->dtype, op->value);
  }
  std::string visit_(const FloatImmNode* op, const Expr&) override {
    return float_literal(op->dtype, op->value);
  }
  std::string visit_(const VarNode* op, const Expr&) override {
    auto it = vars_.find(op);
    MRD_CHECK(it != vars_.end(), "variable used outside of its loop or let: ", op->name);
    return it->second;
  }
  std::string visit_(const BinaryNode* op, const Expr&) override {
    std::string a = visit(op->a), b = visit(op->b);
    DType t = op->a->dtype;
    switch (op->op) {
      case BinaryOp::Add: return str_cat("(", a, " + ", b, ")");
      case BinaryOp::Sub: return str_cat("(", a, " - ", b, ")");
      case BinaryOp::Mul: return str_cat("(", a, " * ", b, ")");
      case BinaryOp::Div: return str_cat("(", a, " / ", b, ")");
      case BinaryOp::FloorDiv:
        // Truncation and floor agree for a non-negative dividend and a positive divisor.
        if (is_int(t) && non_negative(op->a) && positive_const(op->b)) return str_cat("(", a, " / ", b, ")");
        if (is_float(t)) return str_cat("floor", t == DType::Float32 ? "f" : "", "(", a, " / ", b, ")");
        return str_cat("mrd_floordiv_", suffix(t), "(", a, ", ", b, ")");
      case BinaryOp::FloorMod:
        if (is_int(t) && non_negative(op->a) && positive_const(op->b)) return str_cat("(", a, " % ", b, ")");
        if (is_float(t)) {
          const char* f = t == DType::Float32 ? "f" : "";
          return str_cat("(", a, " - floor", f, "(", a, " / ", b, ") * ", b, ")");
        }
        return str_cat("mrd_floormod_", suffix(t), "(", a, ", ", b, ")");
      case BinaryOp::Min: return str_cat("mrd_min_", suffix(t), "(", a, ", ", b, ")");
      case BinaryOp::Max: return str_cat("mrd_max_", suffix(t), "(", a, ", ", b, ")");
      case BinaryOp::EQ: return str_cat("(", a, " == ", b, ")");
      case BinaryOp::NE: return str_cat("(", a, " != ", b, ")");
      case BinaryOp::LT: return str_cat("(", a, " < ", b, ")");
      case BinaryOp::LE: return str_cat("(", a, " <= ", b, ")");
      case BinaryOp::GT: return str_cat("(", a, " > ", b, ")");
      case BinaryOp::GE: return str_cat("(", a, " >= ", b, ")");
      case BinaryOp::And: return str_cat("(", a, " && ", b, ")");
      case BinaryOp::Or: return str_cat("(", a, " || ", b, ")");
    }
    throw_internal(__FILE__, __LINE__, "unknown binary operator");
  }
  std::string visit_(const NotNode* op, const Expr&) override {
    return str_cat("(!", visit(op->a), ")");
  }
  std::string visit_(const SelectNode* op, const Expr&) override {
    return str_cat("(", visit(op->cond), " ? ", visit(op->t), " : ", visit(op->f), ")");
  }
  std::string visit_(const CastNode* op, const Expr&) override {
    std::string v = visit(op->value);
    if (op->dtype == DType::Bool) return str_cat("((uint8_t)(", v, " != 0))");
    return str_cat("((", c_type(op->dtype), ")", v, ")");
  }
  std::string visit_(const CallNode* op, const Expr&) override {
    std::vector<std::string> a;
    for (const Expr& x : op->args) a.push_back(visit(x));
    DType t = op->dtype;
    switch (op->op) {
      case CallOp::IfThenElse: return str_cat("(", a.at(0), " ? ", a.at(1), " : ", a.at(2), ")");
      case CallOp::Likely: return str_cat("__builtin_expect(!!(", a.at(0), "), 1)");
      case CallOp::Sigmoid:
        if (t == DType::Float64) return str_cat("mrd_sigmoid_f64(", a.at(0), ")");
        return str_cat("((", c_type(t), ")mrd_sigmoid_f32((float)", a.at(0), "))");
      case CallOp::Fabs:
        if (is_int(t)) return str_cat("mrd_abs_", suffix(t), "(", a.at(0), ")");
        break;
      default: break;
    }
    const char* name = math_name(op->op);
    MRD_CHECK(name != nullptr, "intrinsic without a C form");
    std::string args;
    for (size_t i = 0; i < a.size(); ++i) {
      args += str_cat(i ? ", " : "", t == DType::Float32 ? "(float)" : "(double)", a[i]);
    }
    std::string call = str_cat(name, t == DType::Float32 ? "f" : "", "(", args, ")");
    if (!is_float(t)) return str_cat("((", c_type(t), ")", call, ")");
    return call;
  }
  std::string visit_(const TensorReadNode* op, const Expr&) override {
    throw_internal(__FILE__, __LINE__, "a tensor read reached code generation");
  }
  std::string visit_(const ReduceNode* op, const Expr&) override {
    throw_internal(__FILE__, __LINE__, "a reduction reached code generation");
  }
  std::string visit_(const BufferLoadNode* op, const Expr&) override {
    return str_cat(buffer_name(op->buffer), "[", flat_index(op->buffer, op->indices), "]");
  }
};

}  // namespace

std::string emit_c(const ir::PrimFunc& f) {
  CEmitter emitter;
  return emitter.run(f);
}

}  // namespace mrd::codegen
