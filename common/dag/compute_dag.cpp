#include "common/dag/compute_dag.h"

#include <queue>
#include <unordered_set>

#include "common/ir/printer.h"
#include "common/util/error.h"

namespace mrd::dag {

using ir::Operation;
using ir::OperationNode;

std::vector<Operation> topo_sort_ops(const std::vector<ir::Tensor>& tensors) {
  std::unordered_map<const OperationNode*, int> degree, priority;
  std::unordered_map<const OperationNode*, std::vector<Operation>> edges;
  std::unordered_map<const OperationNode*, Operation> handle;
  std::vector<Operation> stack;
  for (const ir::Tensor& t : tensors) stack.push_back(t.op());
  int count = 0;
  while (!stack.empty()) {
    Operation op = stack.back();
    stack.pop_back();
    if (priority.count(op.get())) continue;
    priority[op.get()] = count++;
    handle[op.get()] = op;
    std::vector<Operation> inputs = ir::input_ops(*op);
    degree[op.get()] = static_cast<int>(inputs.size());
    for (const Operation& in : inputs) {
      edges[in.get()].push_back(op);
      stack.push_back(in);
    }
  }
  using Item = std::pair<const OperationNode*, int>;
  auto later_first = [](const Item& l, const Item& r) { return l.second < r.second; };
  std::priority_queue<Item, std::vector<Item>, decltype(later_first)> ready(later_first);
  for (const auto& [op, d] : degree) {
    if (d == 0) ready.push({op, priority[op]});
  }
  std::vector<Operation> order;
  while (!ready.empty()) {
    const OperationNode* op = ready.top().first;
    ready.pop();
    order.push_back(handle[op]);
    for (const Operation& dst : edges[op]) {
      if (--degree[dst.get()] == 0) ready.push({dst.get(), priority[dst.get()]});
    }
  }
  return order;
}

namespace {

void post_dfs(const Operation& op, std::unordered_set<const OperationNode*>& visited,
              std::vector<Operation>& out) {
  if (!visited.insert(op.get()).second) return;
  for (const Operation& in : ir::input_ops(*op)) post_dfs(in, visited, out);
  out.push_back(op);
}

}  // namespace

ComputeDAG::ComputeDAG(std::vector<ir::Tensor> tensors) : tensors_(std::move(tensors)) {
  MRD_USER_CHECK(!tensors_.empty(), "a compute DAG needs at least one tensor");
  for (const ir::Tensor& t : tensors_) MRD_USER_CHECK(t.defined(), "undefined tensor in DAG");

  std::vector<Operation> topo = topo_sort_ops(tensors_);
  std::unordered_set<const OperationNode*> read;
  for (const Operation& op : topo) {
    for (const Operation& in : ir::input_ops(*op)) read.insert(in.get());
  }
  std::unordered_set<const OperationNode*> visited;
  for (const Operation& op : topo) {
    if (!read.count(op.get())) post_dfs(op, visited, ops_);
  }
  for (size_t i = 0; i < ops_.size(); ++i) stage_of_[ops_[i].get()] = static_cast<int>(i);
  consumers_.assign(ops_.size(), {});
  producers_.assign(ops_.size(), {});
  for (size_t i = 0; i < ops_.size(); ++i) {
    for (const Operation& in : ir::input_ops(*ops_[i])) {
      int p = stage_of_.at(in.get());
      producers_[i].push_back(p);
      consumers_[p].push_back(static_cast<int>(i));
    }
  }
}

int ComputeDAG::stage_id(const OperationNode* op) const {
  auto it = stage_of_.find(op);
  return it == stage_of_.end() ? -1 : it->second;
}

std::string ComputeDAG::print() const {
  std::string out;
  for (const Operation& op : ops_) out += ir::op_definition(*op) + "\n";
  return out;
}

}  // namespace mrd::dag
