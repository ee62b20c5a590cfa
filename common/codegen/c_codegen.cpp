#include "common/codegen/c_codegen.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "common/codegen/affine_index.h"
#include "common/codegen/c_prelude.h"
#include "common/codegen/c_register_plan.h"
#include "common/codegen/c_vector_plan.h"
#include "common/ir/expr_functor.h"
#include "common/ir/expr_queries.h"
#include "common/ir/stmt_functor.h"
#include "common/ir/substitute.h"
#include "common/lower/arith.h"
#include "common/util/error.h"

namespace mrd::codegen {
namespace {

using namespace ir;

const char* suffix(DType t) {
  switch (t) {
    case DType::Bool: return "b";
    case DType::Int8: return "i8";
    case DType::UInt8: return "u8";
    case DType::Int16: return "i16";
    case DType::UInt16: return "u16";
    case DType::Int32: return "i32";
    case DType::UInt32: return "u32";
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

/// e cast back to t when t is an integer narrower than C's int, whose operators compute in int.
std::string narrow_int(DType t, std::string e) {
  return dtype_bytes(t) < 4 && is_int(t) ? str_cat("((", c_type(t), ")", e, ")") : e;
}

const char* math_name(CallOp op) {
  switch (op) {
    case CallOp::Exp: return "exp";
    case CallOp::Log: return "log";
    case CallOp::Sqrt: return "sqrt";
    case CallOp::Tanh: return "tanh";
    case CallOp::Pow: return "pow";
    case CallOp::Fabs: return "fabs";
    case CallOp::Erf: return "erf";
    case CallOp::Floor: return "floor";
    case CallOp::Ceil: return "ceil";
    case CallOp::Trunc: return "trunc";
    case CallOp::Round: return "round";
    case CallOp::Sin: return "sin";
    case CallOp::Cos: return "cos";
    case CallOp::Exp2: return "exp2";
    case CallOp::Log2: return "log2";
    case CallOp::Log10: return "log10";
    default: return nullptr;
  }
}

class CEmitter : public ExprFunctor<std::string> {
 public:
  std::string run(const PrimFunc& f) {
    os_ << kCPrelude << "\n";
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
    if (region_active_) region_bound_.insert(v.get());
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
      if (!is_index(b->dtype)) return false;  // 8-bit sums may wrap below zero
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

  // ---- vector loops and registers for local buffers ----------------------------------------

  /// A local buffer in registers within the region being printed (c_register_plan.h), with
  /// the C text of its base and the prefix of its variables.
  struct Promotion {
    DType dtype = DType::Float32;
    RegisterPromotion plan;
    std::string base_c, prefix;
  };
  std::unordered_map<const BufferNode*, Promotion> promo_;
  std::unordered_map<const BufferNode*, int64_t> allocated_;  // allocations in scope -> elements
  std::unordered_set<const ExprNode*> region_bound_;
  LoopRanges ranges_;
  bool region_active_ = false;
  /// The most variables that one register region printed within the statement being printed
  /// holds, times the unroll pragmas kept around that region within the statement.
  RegisterCount pressure_;

  /// The lane being emitted in a vector statement: loop variable, first lane's value, width.
  struct Lane {
    const ExprNode* var = nullptr;
    int64_t start = 0;
    int width = 0;
    DType dtype = DType::Float32;
  };

  static std::string vec_tag(DType t, int w) {
    const char* c = t == DType::Float32 ? "f" : t == DType::Float64 ? "d" : "i";
    return str_cat("v", w, c);
  }

  // The variable standing for buffer `b` at the access, or "" when `b` is not promoted here
  // (the access then goes to memory; a failed promotion is retried without `b`).
  std::string promoted(const Buffer& b, const std::vector<Expr>& indices, const Lane* lane, bool store) {
    auto it = promo_.find(b.get());
    if (it == promo_.end() || it->second.plan.failed()) return "";
    Promotion& p = it->second;
    std::optional<int64_t> offset =
        p.plan.admit(flat_affine(b, indices), lane ? lane->var : nullptr, lane ? lane->start : 0,
                     lane ? lane->width : 0, ranges_, region_bound_, store);
    if (!offset) return "";
    if (p.prefix.empty()) {
      Expr base = IntImmNode::make(DType::Int32, 0);
      for (const auto& [key, term] : p.plan.base()) base = base + term.first * Expr(term.second);
      p.base_c = visit(base);
      p.prefix = str_cat("r", next_var_++, "_");
    }
    return register_name(p.prefix, *offset);
  }

  static std::string register_name(const std::string& prefix, int64_t offset) {
    return str_cat(prefix, offset < 0 ? "m" : "", std::abs(offset));
  }

  // State of the vectorized loop being emitted.
  const VarNode* vvar_ = nullptr;
  std::unordered_map<const ExprNode*, bool> folded_;  // atom -> value in the current chunk

  // C text of condition `c` in the current chunk, its atoms replaced by their values ("1",
  // "0" or a lane-invariant expression).
  std::string cond_text(const Expr& c) {
    if (!uses(c, vvar_)) return visit(c);
    if (const auto* call = c.as<CallNode>()) return cond_text(call->args.at(0));  // likely
    if (const auto* n = c.as<NotNode>()) {
      std::string a = cond_text(n->a);
      return a == "1" ? "0" : a == "0" ? "1" : str_cat("(!", a, ")");
    }
    const auto* b = c.as<BinaryNode>();
    MRD_CHECK(b != nullptr, "vector condition of an unexpected form");
    if (b->op == BinaryOp::And || b->op == BinaryOp::Or) {
      bool is_and = b->op == BinaryOp::And;
      std::string x = cond_text(b->a);
      const char* absorbing = is_and ? "0" : "1";
      if (x == absorbing) return absorbing;
      std::string y = cond_text(b->b);
      if (y == absorbing) return absorbing;
      if (x != "0" && x != "1" && y != "0" && y != "1") return str_cat("(", x, is_and ? " && " : " || ", y, ")");
      return (x == "0" || x == "1") ? y : x;  // x or y is the neutral element
    }
    return folded_.at(c.get()) ? "1" : "0";
  }

  std::string vector_select(const Expr& cond, const Expr& t, const Expr& f, const Lane& lane) {
    std::string c = cond_text(cond);
    if (c == "1") return vector_expr(t, lane);
    if (c == "0") return vector_expr(f, lane);
    return str_cat("(", c, " ? ", vector_expr(t, lane), " : ", vector_expr(f, lane), ")");
  }

  std::string vector_expr(const Expr& e, const Lane& lane) {
    std::string tag = vec_tag(lane.dtype, lane.width);
    if (!uses(e, lane.var)) return str_cat("mrd_bc_", tag, "(", visit(e), ")");
    if (const auto* l = e.as<BufferLoadNode>()) {
      const int64_t k = flat_affine(l->buffer, l->indices).coefficient(static_cast<const VarNode*>(lane.var));
      if (k != 1) {
        std::string lanes;
        for (int i = 0; i < lane.width; ++i) lanes += str_cat(i ? ", " : "", "mrd_p[", int_literal(DType::Int64, i * k), "]");
        return str_cat("({ const ", c_type(lane.dtype), "* mrd_p = &", buffer_name(l->buffer), "[",
                       flat_index(l->buffer, l->indices), "]; (mrd_", tag, "){", lanes, "}; })");
      }
      std::string r = promoted(l->buffer, l->indices, &lane, false);
      if (!r.empty()) return r;
      return str_cat("mrd_ld_", tag, "(&", buffer_name(l->buffer), "[", flat_index(l->buffer, l->indices), "])");
    }
    if (const auto* s = e.as<SelectNode>()) return vector_select(s->cond, s->t, s->f, lane);
    if (const auto* c = e.as<CallNode>()) {
      MRD_CHECK(c->op == CallOp::IfThenElse, "vector call of an unexpected form");
      return vector_select(c->args.at(0), c->args.at(1), c->args.at(2), lane);
    }
    const auto* b = e.as<BinaryNode>();
    MRD_CHECK(b != nullptr, "vector expression of an unexpected form");
    if (b->op == BinaryOp::Min || b->op == BinaryOp::Max) {
      return str_cat(b->op == BinaryOp::Min ? "mrd_vmin_" : "mrd_vmax_", tag, "(", vector_expr(b->a, lane), ", ",
                     vector_expr(b->b, lane), ")");
    }
    const char* op = b->op == BinaryOp::Add ? " + " : b->op == BinaryOp::Sub ? " - " : b->op == BinaryOp::Mul ? " * " : " / ";
    return str_cat("(", vector_expr(b->a, lane), op, vector_expr(b->b, lane), ")");
  }

  // Lanes [start, start + width) of the loop over `op` as scalar statements.
  void emit_scalar_lanes(const ForNode* op, int64_t start, int width, int depth) {
    for (int64_t x = start; x < start + width; ++x) {
      emit_stmt(substitute(op->body, VarMap{{op->var.as<VarNode>(), IntImmNode::make(op->var->dtype, x)}}), depth);
    }
  }

  // Emits a vectorized loop as GCC vector statements (c_vector_plan.h); false to fall back.
  bool emit_vector_loop(const ForNode* op, int depth) {
    VectorContext ctx;
    ctx.in_registers = [this](const BufferNode* b) {
      auto it = promo_.find(b);
      return it != promo_.end() && !it->second.plan.failed();
    };
    ctx.register_candidate = [this](const BufferNode* b) { return promo_.count(b) > 0; };
    ctx.copied = vector_copies_ != 1;
    std::optional<VectorPlan> plan = plan_vector_loop(op, ctx);
    if (!plan) return false;
    vvar_ = plan->var;
    const StoreNode* st = plan->store;
    const DType t = st->buffer->dtype;
    for (const auto& [start, width] : plan->chunks) {
      if (width == 1) {
        emit_scalar_lanes(op, start, 1, depth);
        continue;
      }
      Lane lane{op->var.get(), start, width, t};
      std::vector<std::string> guards;
      folded_.clear();
      for (const auto& [node, a] : plan->atoms) {
        if (a.is_static) {
          folded_[node] = a.value_at(start);
          continue;
        }
        folded_[node] = true;
        for (int64_t x : {start, start + width - 1}) {
          guards.push_back(visit(substitute(a.expr, VarMap{{vvar_, IntImmNode::make(op->var->dtype, x)}})));
        }
      }
      int d = depth;
      if (!guards.empty()) {
        std::string all;
        for (const std::string& g : guards) all += str_cat(all.empty() ? "" : " && ", g);
        indent(os_, d);
        os_ << "if (" << all << ") {\n";
        ++d;
      }
      emit_vector_chunk(op, st, plan->conds, lane, d);
      if (!guards.empty()) {
        indent(os_, depth);
        os_ << "} else {\n";
        emit_scalar_lanes(op, start, width, depth + 1);
        indent(os_, depth);
        os_ << "}\n";
      }
    }
    return true;
  }

  void emit_vector_chunk(const ForNode* op, const StoreNode* st, const std::vector<Expr>& conds,
                         const Lane& lane, int depth) {
    Scope scope(*this, op->var);
    std::string v = bind_var(op->var);
    nonneg_[op->var.get()] = lane.start >= 0;
    region_bound_.insert(op->var.get());
    std::vector<std::string> texts;
    for (const Expr& c : conds) {
      std::string ct = cond_text(c);
      if (ct == "0") return;  // the store is skipped for every lane of the chunk
      if (ct != "1") texts.push_back(ct);
    }
    indent(os_, depth);
    os_ << "{\n";
    indent(os_, depth + 1);
    os_ << "const " << c_type(op->var->dtype) << " " << v << " = " << int_literal(op->var->dtype, lane.start) << ";\n";
    int d = depth + 1;
    for (const std::string& c : texts) {
      indent(os_, d++);
      os_ << "if (" << c << ") {\n";
    }
    std::string value = vector_expr(st->value, lane);
    std::string r = promoted(st->buffer, st->indices, &lane, true);
    indent(os_, d);
    if (!r.empty()) {
      os_ << r << " = " << value << ";\n";
    } else {
      os_ << "mrd_st_" << vec_tag(lane.dtype, lane.width) << "(&" << buffer_name(st->buffer) << "["
          << flat_index(st->buffer, st->indices) << "], " << value << ");\n";
    }
    while (d > depth + 1) {
      indent(os_, --d);
      os_ << "}\n";
    }
    indent(os_, depth);
    os_ << "}\n";
  }
  static bool has_inner_loops(const Stmt& s) {
    struct Finder : StmtVisitor {
      bool found = false;
      void visit_(const ForNode* op, const Stmt& self) override {
        if (op->for_kind != ForKind::Vectorized) found = true;
        StmtVisitor::visit_(op, self);
      }
    } f;
    f.visit(s);
    return f.found;
  }

  // Emits `body` with the local buffers `cands` in registers where every access allows it
  // (retrying without the buffers that do not), else as is.
  void emit_region(const Stmt& body, int depth, std::vector<const BufferNode*> cands) {
    if (region_active_ || cands.empty()) {
      emit_stmt(body, depth);
      return;
    }
    region_active_ = true;
    while (!cands.empty()) {
      promo_.clear();
      region_bound_.clear();
      for (const BufferNode* b : cands) promo_.emplace(b, Promotion{b->dtype, RegisterPromotion(allocated_.at(b)), "", ""});
      std::ostringstream saved;
      saved.swap(os_);
      const int saved_next = next_var_;
      emit_stmt(body, depth + 1);
      std::string text = os_.str();
      os_.swap(saved);
      std::vector<const RegisterPromotion*> plans;
      for (const auto& [b, p] : promo_) plans.push_back(&p.plan);
      const bool fits = fits_registers(plans);
      std::vector<const BufferNode*> keep;
      for (const BufferNode* b : cands) {
        const RegisterPromotion& p = promo_.at(b).plan;
        if (!p.failed() && !p.chunks().empty() && fits) keep.push_back(b);
      }
      if (keep.size() == cands.size()) {
        pressure_ = max_count(pressure_, register_count(plans));
        indent(os_, depth);
        os_ << "{\n";
        for (const BufferNode* b : cands) {
          const Promotion& p = promo_.at(b);
          for (const auto& [off, reg] : p.plan.chunks()) {
            indent(os_, depth + 1);
            std::string name = register_name(p.prefix, off);
            std::string addr = str_cat("&", buffers_.at(b), "[", p.base_c, " + ", int_literal(DType::Int32, off), "]");
            if (reg.width > 0) {
              std::string tag = vec_tag(p.dtype, reg.width);
              os_ << "mrd_" << tag << " " << name << " = mrd_ld_" << tag << "(" << addr << ");\n";
            } else {
              os_ << c_type(p.dtype) << " " << name << " = *" << addr << ";\n";
            }
          }
        }
        os_ << text;
        for (const BufferNode* b : cands) {
          const Promotion& p = promo_.at(b);
          for (const auto& [off, reg] : p.plan.chunks()) {
            if (!reg.stored) continue;
            indent(os_, depth + 1);
            std::string name = register_name(p.prefix, off);
            std::string addr = str_cat("&", buffers_.at(b), "[", p.base_c, " + ", int_literal(DType::Int32, off), "]");
            if (reg.width > 0) {
              os_ << "mrd_st_" << vec_tag(p.dtype, reg.width) << "(" << addr << ", " << name << ");\n";
            } else {
              os_ << "*" << addr << " = " << name << ";\n";
            }
          }
        }
        indent(os_, depth);
        os_ << "}\n";
        promo_.clear();
        region_active_ = false;
        return;
      }
      next_var_ = saved_next;
      cands = keep;
    }
    promo_.clear();
    region_bound_.clear();
    region_active_ = false;
    emit_stmt(body, depth);
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

  void emit_stmt(const Stmt& s, int depth) {
    switch (s->kind) {
      case StmtKind::For: emit_for(s.as<ForNode>(), depth); break;
      case StmtKind::Allocate: emit_allocate(s.as<AllocateNode>(), depth); break;
      case StmtKind::Store: {
        const auto* op = s.as<StoreNode>();
        std::string value = visit(op->value);
        std::string reg = promoted(op->buffer, op->indices, nullptr, true);
        indent(os_, depth);
        if (!reg.empty()) {
          os_ << reg << " = " << value << ";\n";
          break;
        }
        os_ << buffer_name(op->buffer) << "[" << flat_index(op->buffer, op->indices)
            << "] = " << value << ";\n";
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
    const int64_t* cmin = as_const_int(op->min);
    const int64_t* cext = as_const_int(op->extent);
    const char* t = c_type(op->var->dtype);
    // A loop whose extent is `end - min`, min itself (bounds taken from a guard), runs to end.
    const auto* to_end = op->extent.as<BinaryNode>();
    const bool has_end = to_end && to_end->op == BinaryOp::Sub && to_end->b.same_as(op->min);
    std::string hi = has_end                   ? visit(to_end->a)
                     : (cmin && *cmin == 0) ? visit(op->extent)
                                            : str_cat("(", lo, " + ", visit(op->extent), ")");
    Scope scope(*this, op->var);
    const int64_t copies_before = vector_copies_;
    bool nonneg = non_negative(op->min);
    std::optional<std::pair<int64_t, int64_t>> range;
    if (cmin && cext && *cext > 0) {
      range = std::make_pair(*cmin, *cmin + *cext - 1);
    } else if (has_end) {
      lower::ConstEnds first = lower::const_ends(op->min), end = lower::const_ends(to_end->a);
      nonneg = nonneg || (first.lo && *first.lo >= 0);
      if (first.lo && end.hi && *end.hi > *first.lo) range = std::make_pair(*first.lo, *end.hi - 1);
    }
    if (op->for_kind == ForKind::Vectorized && emit_vector_loop(op, depth)) return;
    // A short vectorized loop outside the vector form, one statement long: its lanes as
    // scalar statements (many tiny simd loops cost the compiler more than they give).
    if (op->for_kind == ForKind::Vectorized && cmin && cext && *cext <= kMaxScalarLanes &&
        (op->body.as<StoreNode>() || op->body.as<IfThenElseNode>()) && !has_inner_loops(op->body)) {
      for (int64_t i = 0; i < *cext; ++i) {
        emit_stmt(substitute(op->body, VarMap{{op->var.as<VarNode>(), IntImmNode::make(op->var->dtype, *cmin + i)}}), depth);
      }
      return;
    }
    std::string v = bind_var(op->var);
    nonneg_[op->var.get()] = nonneg;
    struct RangeScope {
      CEmitter& e;
      const ExprNode* var;
      ~RangeScope() { e.ranges_.erase(var); }
    } range_scope{*this, op->var.get()};
    if (range) ranges_[op->var.get()] = *range;
    const Stmt& body = op->body;
    int64_t unroll_pragma = 0;

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
            unroll_pragma = *cext;
          }
        }
        break;
      case ForKind::Serial:
        break;
    }
    // The loop is printed aside first: whether its unroll pragma stays depends on the
    // register regions printed in it.
    const RegisterCount outer_pressure = pressure_;
    pressure_ = {};
    std::ostringstream printed;
    printed.swap(os_);
    indent(os_, depth);
    os_ << "for (" << t << " " << v << " = " << lo << "; " << v << " < " << hi << "; ++" << v
        << ") {\n";
    if (op->for_kind != ForKind::Vectorized && !has_inner_loops(body)) {
      emit_region(body, depth + 1, accessed_locals(body, allocated_));
    } else {
      emit_stmt(body, depth + 1);
    }
    vector_copies_ = copies_before;
    indent(os_, depth);
    os_ << "}\n";
    os_.swap(printed);
    // Copies of a register region beyond the register budget: GCC keeps every copy's
    // variables live across the loops around (store motion) and then vectorizes those loops
    // over hundreds of them, for tens of seconds (64 scalar accumulators unrolled 8 times in
    // a k loop: 49 s, against 0.6 s without the pragma).
    if (unroll_pragma > 1) {
      const RegisterCount copies{pressure_.vector * unroll_pragma,
                                 pressure_.scalar * unroll_pragma};
      if (within_budget(copies)) {
        pressure_ = copies;
        indent(os_, depth);
        os_ << "#pragma GCC unroll " << unroll_pragma << "\n";
      }
    }
    os_ << printed.str();
    pressure_ = max_count(outer_pressure, pressure_);
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
    allocated_[b.get()] = n;
    if (bytes <= kMaxStackAllocationBytes) {
      indent(os_, depth + 1);
      os_ << t << " " << name << "[" << n << "] __attribute__((aligned(64)));\n";
      // A buffer that fits in registers may live in them for its whole scope.
      if (fits_whole_scope(n, b->dtype)) {
        emit_region(op->body, depth + 1, {b.get()});
      } else {
        emit_stmt(op->body, depth + 1);
      }
    } else {
      indent(os_, depth + 1);
      os_ << t << "* restrict " << name << " = (" << t << "*)mrd_alloc((size_t)INT64_C(" << bytes
          << "));\n";
      indent(os_, depth + 1);
      os_ << "if (" << name << ") {\n";
      emit_stmt(op->body, depth + 2);
      indent(os_, depth + 2);
      os_ << "free(" << name << ");\n";
      allocated_.erase(b.get());
      indent(os_, depth + 1);
      os_ << "} else {\n";
      indent(os_, depth + 2);
      os_ << "mrd_err = 1;\n";
      indent(os_, depth + 1);
      os_ << "}\n";
    }
    allocated_.erase(b.get());  // out of scope: never a candidate outside its allocation
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
    // C computes 8- and 16-bit operands in int: the result wraps back to the type, as the
    // IR's narrow arithmetic does (a uint16 product in unsigned int, where it cannot overflow).
    auto narrow = [&](std::string e) { return narrow_int(t, std::move(e)); };
    switch (op->op) {
      case BinaryOp::Add: return narrow(str_cat("(", a, " + ", b, ")"));
      case BinaryOp::Sub: return narrow(str_cat("(", a, " - ", b, ")"));
      case BinaryOp::Mul:
        if (t == DType::UInt16) return narrow(str_cat("((uint32_t)", a, " * ", b, ")"));
        return narrow(str_cat("(", a, " * ", b, ")"));
      case BinaryOp::Div: return narrow(str_cat("(", a, " / ", b, ")"));
      case BinaryOp::Mod:
        if (is_float(t)) return str_cat("fmod", t == DType::Float32 ? "f" : "", "(", a, ", ", b, ")");
        return narrow(str_cat("(", a, " % ", b, ")"));
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
      case CallOp::IsNan: return str_cat("(isnan(", a.at(0), ") != 0)");
      case CallOp::BitwiseAnd: return narrow_int(t, str_cat("(", a.at(0), " & ", a.at(1), ")"));
      case CallOp::BitwiseOr: return narrow_int(t, str_cat("(", a.at(0), " | ", a.at(1), ")"));
      case CallOp::BitwiseXor: return narrow_int(t, str_cat("(", a.at(0), " ^ ", a.at(1), ")"));
      case CallOp::BitwiseNot:
        if (t == DType::Bool) return str_cat("(!", a.at(0), ")");
        return narrow_int(t, str_cat("(~", a.at(0), ")"));
      case CallOp::ShiftLeft:  // in uint64_t: a negative value's shift is defined
        return str_cat("((", c_type(t), ")((uint64_t)", a.at(0), " << ", a.at(1), "))");
      case CallOp::ShiftRight: return narrow_int(t, str_cat("(", a.at(0), " >> ", a.at(1), ")"));
      case CallOp::Rsqrt:
        if (t == DType::Float64) return str_cat("(1.0 / sqrt((double)", a.at(0), "))");
        return str_cat("(1.0f / sqrtf((float)", a.at(0), "))");
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
    std::string reg = promoted(op->buffer, op->indices, nullptr, false);
    if (!reg.empty()) return reg;
    return str_cat(buffer_name(op->buffer), "[", flat_index(op->buffer, op->indices), "]");
  }
  std::string visit_(const RampNode* op, const Expr&) override {
    throw_internal(__FILE__, __LINE__, "a vector ramp reached the C backend (its pipeline does not vectorize)");
  }
  std::string visit_(const BroadcastNode* op, const Expr&) override {
    throw_internal(__FILE__, __LINE__, "a vector broadcast reached the C backend (its pipeline does not vectorize)");
  }
};

}  // namespace

const char* c_type(ir::DType t) {
  switch (t) {
    case DType::Bool: return "uint8_t";
    case DType::Int8: return "int8_t";
    case DType::UInt8: return "uint8_t";
    case DType::Int16: return "int16_t";
    case DType::UInt16: return "uint16_t";
    case DType::Int32: return "int32_t";
    case DType::UInt32: return "uint32_t";
    case DType::Int64: return "int64_t";
    case DType::Float32: return "float";
    case DType::Float64: return "double";
  }
  return "void";
}

std::string emit_c(const ir::PrimFunc& f) {
  CEmitter emitter;
  return emitter.run(f);
}

}  // namespace mrd::codegen
