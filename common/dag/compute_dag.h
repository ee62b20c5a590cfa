// A workload as auto_scheduler sees it: the tensor list (inputs then outputs, in the
// function's argument order) and every operation reachable from it, in stage order. Stage ids
// are positions in TVM's te::create_schedule(outputs).stages: a post-DFS over the ops, each op
// after the ops it reads, in the order it reads them.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "common/ir/operation.h"

namespace mrd::dag {

class ComputeDAG {
 public:
  /// Builds the DAG of a workload's tensors. Throws UserError for an empty list.
  explicit ComputeDAG(std::vector<ir::Tensor> tensors);

  /// The workload's tensors, in argument order (the PrimFunc's parameters).
  const std::vector<ir::Tensor>& tensors() const { return tensors_; }
  /// Every operation, in stage order.
  const std::vector<ir::Operation>& ops() const { return ops_; }
  /// The stage id of an op of this DAG, or -1.
  int stage_id(const ir::OperationNode* op) const;
  /// Stage ids of the ops that read stage `id`, ascending.
  const std::vector<int>& consumers(int id) const { return consumers_[id]; }
  /// Stage ids of the ops that stage `id` reads, in its InputTensors order.
  const std::vector<int>& producers(int id) const { return producers_[id]; }
  /// True for ops read by no other op (TVM's AccessAnalyzer::IsOutput).
  bool is_output(int id) const { return consumers_[id].empty(); }

  /// One line per op in stage order, as TVM prints a ComputeDAG.
  std::string print() const;

 private:
  std::vector<ir::Tensor> tensors_;
  std::vector<ir::Operation> ops_;
  std::unordered_map<const ir::OperationNode*, int> stage_of_;
  std::vector<std::vector<int>> consumers_;
  std::vector<std::vector<int>> producers_;
};

/// TVM's TopoSortOps over the ops reachable from `tensors`: Kahn's algorithm where, among
/// ready ops, the one discovered last by a depth-first walk from the tensor list goes first.
std::vector<ir::Operation> topo_sort_ops(const std::vector<ir::Tensor>& tensors);

}  // namespace mrd::dag
