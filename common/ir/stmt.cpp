#include "common/ir/stmt.h"

#include "common/util/error.h"

namespace mrd::ir {

Buffer BufferNode::make(std::string name, DType dtype, std::vector<int64_t> shape,
                        MemScope scope) {
  auto b = std::make_shared<BufferNode>();
  b->name = std::move(name);
  b->dtype = dtype;
  b->shape = std::move(shape);
  b->scope = scope;
  return b;
}

int64_t BufferNode::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string_view for_kind_name(ForKind k) {
  switch (k) {
    case ForKind::Serial: return "serial";
    case ForKind::Parallel: return "parallel";
    case ForKind::Vectorized: return "vectorized";
    case ForKind::Unrolled: return "unrolled";
  }
  return "?";
}

Stmt ForNode::make(Var var, Expr min, Expr extent, ForKind kind, Stmt body,
                   int64_t auto_unroll_max_step) {
  MRD_CHECK(body.defined(), "for loop without a body");
  return Stmt(std::make_shared<const ForNode>(std::move(var), std::move(min), std::move(extent),
                                              kind, std::move(body), auto_unroll_max_step));
}

Stmt AllocateNode::make(Buffer buffer, Stmt body) {
  MRD_CHECK(buffer && body.defined(), "allocate without buffer or body");
  return Stmt(std::make_shared<const AllocateNode>(std::move(buffer), std::move(body)));
}

Stmt StoreNode::make(Buffer buffer, std::vector<Expr> indices, Expr value) {
  MRD_CHECK(buffer && value.defined(), "store without buffer or value");
  int lanes = 1;
  for (const Expr& i : indices) {
    MRD_CHECK(i->lanes == 1 || indices.size() == 1, "a vector index into a multi-dimensional buffer");
    lanes = i->lanes;
  }
  if (lanes > 1) value = broadcast_to(value, lanes);
  MRD_CHECK(value->lanes == lanes, "store of ", value->lanes, " lanes at ", lanes, " indices");
  return Stmt(std::make_shared<const StoreNode>(std::move(buffer), std::move(indices),
                                                std::move(value)));
}

Stmt IfThenElseNode::make(Expr cond, Stmt then_case, Stmt else_case) {
  MRD_CHECK(cond.defined() && then_case.defined(), "if without condition or body");
  return Stmt(std::make_shared<const IfThenElseNode>(std::move(cond), std::move(then_case),
                                                     std::move(else_case)));
}

Stmt SeqNode::make(std::vector<Stmt> stmts) {
  std::vector<Stmt> flat;
  for (Stmt& s : stmts) {
    if (!s.defined()) continue;
    if (const SeqNode* seq = s.as<SeqNode>()) {
      flat.insert(flat.end(), seq->stmts.begin(), seq->stmts.end());
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.size() == 1) return flat[0];
  return Stmt(std::make_shared<const SeqNode>(std::move(flat)));
}

Stmt LetNode::make(Var var, Expr value, Stmt body) {
  MRD_CHECK(value.defined() && body.defined(), "let without value or body");
  return Stmt(std::make_shared<const LetNode>(std::move(var), std::move(value), std::move(body)));
}

}  // namespace mrd::ir
