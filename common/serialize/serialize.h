// Atomic serialization of a workload's tensor list. The whole list is one archive in which
// every node (operation, expression, variable) is written once and referred to by id, so
// nodes shared in memory come back shared: the placeholder an output reads is the very
// operation at its position in the returned list, and an axis variable used in a body is the
// axis's own node. Serializing tensors one at a time loses exactly this.
// Loading treats its input as hostile: any failure is a DecodeError with a typed code.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/ir/operation.h"
#include "common/serialize/decode_error.h"
#include "common/serialize/limits.h"

namespace mrd::serialize {

/// Compact little-endian archive with magic and format version.
std::string dag_to_binary(const std::vector<ir::Tensor>& tensors);
std::vector<ir::Tensor> dag_from_binary(std::string_view bytes, const Limits& limits = {});

/// Readable JSON text with format name and version, for files.
std::string dag_to_json(const std::vector<ir::Tensor>& tensors);
std::vector<ir::Tensor> dag_from_json(std::string_view text, const Limits& limits = {});

}  // namespace mrd::serialize
