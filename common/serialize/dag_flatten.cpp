#include <unordered_map>

#include "common/ir/expr_queries.h"
#include "common/serialize/dag_archive.h"
#include "common/util/error.h"

namespace mrd::serialize {

namespace {

using namespace ir;

/// An operation or an expression node, whichever is set.
struct Item {
  const OperationNode* op = nullptr;
  Expr expr;
  const void* key() const { return op ? static_cast<const void*>(op) : expr.get(); }
};

/// Children of an item in the order they are numbered.
std::vector<Item> children(const Item& item) {
  std::vector<Item> out;
  auto add_expr = [&](const Expr& e) { out.push_back(Item{nullptr, e}); };
  if (item.op) {
    if (item.op->is_placeholder()) return out;
    for (const Operation& p : item.op->layout_free_placeholders) out.push_back(Item{p.get(), Expr()});
    for (const IterVar& iv : item.op->axis) add_expr(iv.var);
    add_expr(item.op->body);
    return out;
  }
  const Expr& e = item.expr;
  MRD_CHECK(e->kind != ExprKind::BufferLoad && e->kind != ExprKind::Ramp && e->kind != ExprKind::Broadcast,
            "a compute DAG holds no buffer load and no vector node");
  if (const TensorReadNode* r = e.as<TensorReadNode>()) {
    MRD_CHECK(r->op != nullptr, "tensor read of an undefined operation");
    out.push_back(Item{r->op.get(), Expr()});
  }
  if (const ReduceNode* r = e.as<ReduceNode>()) {
    for (const IterVar& iv : r->axis) add_expr(iv.var);
  }
  for_each_operand(e, add_expr);
  for (const Item& c : out) MRD_CHECK(c.op || c.expr.defined(), "undefined expression operand");
  return out;
}

class Flattener {
 public:
  uint64_t add(const Item& root) {
    // Iterative post-order: ops may chain deeply and the walk must not recurse.
    std::vector<std::pair<Item, bool>> stack{{root, false}};
    while (!stack.empty()) {
      auto [item, expanded] = stack.back();
      stack.pop_back();
      if (ids_.count(item.key())) continue;
      if (expanded) {
        emit(item);
        continue;
      }
      stack.push_back({item, true});
      std::vector<Item> kids = children(item);
      for (auto it = kids.rbegin(); it != kids.rend(); ++it) {
        if (!ids_.count(it->key())) stack.push_back({*it, false});
      }
    }
    return ids_.at(root.key());
  }

  DagArchive archive;

 private:
  uint64_t id_of(const void* key) const { return ids_.at(key); }
  uint64_t id_of(const Expr& e) const { return ids_.at(e.get()); }

  std::vector<IterVarRecord> axis_records(const std::vector<IterVar>& axis) const {
    std::vector<IterVarRecord> out;
    for (const IterVar& iv : axis) out.push_back({id_of(iv.var), iv.min, iv.extent});
    return out;
  }

  void emit(const Item& item) {
    NodeRecord rec;
    if (const OperationNode* op = item.op) {
      rec.name = op->name;
      rec.dtype = dtype_code(op->dtype);
      if (op->is_placeholder()) {
        rec.kind = NodeKind::Placeholder;
        rec.shape = op->shape;
      } else {
        rec.kind = NodeKind::Compute;
        rec.tag = op->tag;
        rec.axis = axis_records(op->axis);
        rec.ref = id_of(op->body);
        for (const Operation& p : op->layout_free_placeholders) {
          MRD_CHECK(p && p->is_placeholder(), "a layout-free input that is no placeholder");
          rec.layout_free.push_back(id_of(p.get()));
          archive.version = 2;
        }
      }
    } else {
      const Expr& e = item.expr;
      rec.dtype = dtype_code(e->dtype);
      for (const Item& c : children(item)) {
        if (!c.op) rec.operands.push_back(id_of(c.expr));
      }
      switch (e->kind) {
        case ExprKind::IntImm:
          rec.kind = NodeKind::IntImm;
          rec.int_value = e.as<IntImmNode>()->value;
          break;
        case ExprKind::FloatImm:
          rec.kind = NodeKind::FloatImm;
          rec.float_value = e.as<FloatImmNode>()->value;
          break;
        case ExprKind::Var:
          rec.kind = NodeKind::Var;
          rec.name = e.as<VarNode>()->name;
          break;
        case ExprKind::Binary:
          rec.kind = NodeKind::Binary;
          rec.op = binary_op_code(e.as<BinaryNode>()->op);
          break;
        case ExprKind::Not:
          rec.kind = NodeKind::Not;
          break;
        case ExprKind::Select:
          rec.kind = NodeKind::Select;
          break;
        case ExprKind::Cast:
          rec.kind = NodeKind::Cast;
          break;
        case ExprKind::Call:
          rec.kind = NodeKind::Call;
          rec.op = call_op_code(e.as<CallNode>()->op);
          break;
        case ExprKind::TensorRead:
          rec.kind = NodeKind::TensorRead;
          rec.ref = id_of(e.as<TensorReadNode>()->op.get());
          break;
        case ExprKind::Reduce: {
          const ReduceNode* r = e.as<ReduceNode>();
          rec.kind = NodeKind::Reduce;
          rec.op = reduce_op_code(r->op);
          rec.axis = axis_records(r->axis);
          // Operands are source [, condition]; the axis vars are referenced from `axis`.
          rec.operands.erase(rec.operands.begin(),
                             rec.operands.begin() + static_cast<long>(r->axis.size()));
          break;
        }
        case ExprKind::BufferLoad:
        case ExprKind::Ramp:
        case ExprKind::Broadcast:
          break;  // children() refused them
      }
    }
    ids_[item.key()] = archive.nodes.size();
    archive.nodes.push_back(std::move(rec));
  }

  std::unordered_map<const void*, uint64_t> ids_;
};

}  // namespace

DagArchive flatten_dag(const std::vector<ir::Tensor>& tensors) {
  Flattener f;
  for (const ir::Tensor& t : tensors) {
    MRD_CHECK(t.defined(), "undefined tensor in a DAG to serialize");
    f.archive.tensors.push_back(f.add(Item{t.op().get(), ir::Expr()}));
  }
  return std::move(f.archive);
}

}  // namespace mrd::serialize
