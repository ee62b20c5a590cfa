// The node table both archive forms store: every operation and expression node once, in an
// order where each node refers only to earlier ones (ids are positions in the table), then
// the ids of the workload's tensors. flatten_dag builds the table from tensors; rebuild_dag
// validates a table read from untrusted bytes and rebuilds the IR through its make()
// functions, one node object per id, so sharing survives.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/ir/operation.h"
#include "common/serialize/limits.h"
#include "common/serialize/wire_codes.h"

namespace mrd::serialize {

/// Format versions both forms read. Version 2 adds a compute's layout-free placeholders; a
/// writer uses version 1 for a DAG that has none, so such archives read everywhere.
constexpr uint32_t kMinFormatVersion = 1;
constexpr uint32_t kMaxFormatVersion = 2;

/// An axis: the id of its Var node and its range [min, min + extent).
struct IterVarRecord {
  uint64_t var = 0;
  int64_t min = 0;
  int64_t extent = 0;
};

/// One node; node_fields(kind) says which fields are meaningful.
struct NodeRecord {
  NodeKind kind = NodeKind::IntImm;
  uint8_t dtype = 0;  ///< wire code
  uint8_t op = 0;     ///< Binary, Call, Reduce: operator wire code
  std::string name;
  std::string tag;
  int64_t int_value = 0;
  double float_value = 0;
  std::vector<int64_t> shape;
  std::vector<IterVarRecord> axis;
  /// Compute: the body; TensorRead: the operation read.
  uint64_t ref = 0;
  /// Expression operands in order; TensorRead: the indices; Reduce: source [, condition].
  std::vector<uint64_t> operands;
  /// Compute (version 2): the placeholders TVM's layout rewrite may re-lay out for it (the
  /// op's `layout_free_placeholders` attribute).
  std::vector<uint64_t> layout_free;
};

struct DagArchive {
  uint32_t version = kMinFormatVersion;
  std::vector<NodeRecord> nodes;
  std::vector<uint64_t> tensors;
};

/// The node table of `tensors`: each node once, children before parents. Throws
/// InternalError for what is not a DAG (an undefined tensor, a BufferLoad).
DagArchive flatten_dag(const std::vector<ir::Tensor>& tensors);

/// Validates `archive` against `limits` and rebuilds the tensors. Throws DecodeError.
std::vector<ir::Tensor> rebuild_dag(const DagArchive& archive, const Limits& limits);

/// Most operands/indices a node may carry: 3, or the rank limit if larger.
uint64_t max_operands(const Limits& limits);

}  // namespace mrd::serialize
