// Workloads as bytes and as JSON. A function workload is only (name, args): the receiver
// rebuilds it from its own registry. A tensor workload is its key plus ONE atomic DAG archive
// of the whole tensor list, so shared nodes stay shared after the round trip.
//
// Binary layout (little endian): "MRDW", version u8 (1), kind u8 (1 function, 2 tensors);
// function: name (u32 length + bytes), u32 argument count, each argument a tag u8 (1 int64,
// 2 float64 bits, 3 string) and its value (strings as u32 length + bytes); tensors: key
// (u32 length + bytes), DAG archive (u64 length + bytes). Nothing may follow.
//
// JSON (task files): {"function": "matmul", "args": [512, 512, 512, "float32"]} or
// {"dag": <the DAG archive's JSON form>, "key": "..."} (key optional, computed when absent).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/registry/workload.h"
#include "common/serialize/serialize.h"

namespace mrd::registry {

/// Most arguments a function workload may have on the wire.
inline constexpr size_t kMaxWorkloadArgs = 64;

std::string workload_to_binary(const Workload& w);
/// Throws serialize::DecodeError for anything but a well-formed workload within `limits`.
Workload workload_from_binary(std::string_view bytes, const serialize::Limits& limits = {});

nlohmann::json workload_to_json(const Workload& w);
/// Throws serialize::DecodeError for anything but a well-formed workload within `limits`.
Workload workload_from_json(const nlohmann::json& j, const serialize::Limits& limits = {});

}  // namespace mrd::registry
