// Helpers for the hostile-input tests: decode and name the outcome ("ok" or the DecodeErrc),
// so a test reads CHECK(binary_outcome(bytes) == "ForwardId"). Anything thrown that is not a
// DecodeError escapes and fails the test.
#pragma once

#include <string>
#include <string_view>

#include "common/serialize/archive_io.h"
#include "common/serialize/serialize.h"

namespace mrd::serialize::testing {

inline std::string binary_outcome(std::string_view bytes, const Limits& limits = {}) {
  try {
    dag_from_binary(bytes, limits);
  } catch (const DecodeError& e) {
    return std::string(decode_errc_name(e.code()));
  }
  return "ok";
}

inline std::string json_outcome(std::string_view text, const Limits& limits = {}) {
  try {
    dag_from_json(text, limits);
  } catch (const DecodeError& e) {
    return std::string(decode_errc_name(e.code()));
  }
  return "ok";
}

/// Placeholder A[4] and B(i) = A(i) + 1.0f, written node by node:
///   0 A, 1 var i, 2 A[i], 3 1.0f, 4 A[i] + 1.0f, 5 compute B; tensors [0, 5].
inline DagArchive tiny_archive() {
  DagArchive a;
  auto f32 = dtype_code(ir::DType::Float32);
  NodeRecord n;
  n = {};
  n.kind = NodeKind::Placeholder, n.name = "A", n.dtype = f32, n.shape = {4};
  a.nodes.push_back(n);
  n = {};
  n.kind = NodeKind::Var, n.name = "i", n.dtype = dtype_code(ir::DType::Int32);
  a.nodes.push_back(n);
  n = {};
  n.kind = NodeKind::TensorRead, n.dtype = f32, n.ref = 0, n.operands = {1};
  a.nodes.push_back(n);
  n = {};
  n.kind = NodeKind::FloatImm, n.dtype = f32, n.float_value = 1.0;
  a.nodes.push_back(n);
  n = {};
  n.kind = NodeKind::Binary, n.dtype = f32, n.op = binary_op_code(ir::BinaryOp::Add);
  n.operands = {2, 3};
  a.nodes.push_back(n);
  n = {};
  n.kind = NodeKind::Compute, n.name = "B", n.dtype = f32, n.axis = {{1, 0, 4}}, n.ref = 4;
  a.nodes.push_back(n);
  a.tensors = {0, 5};
  return a;
}

/// x_{k+1} = x_k + x_k over tiny_archive's nodes: 50 nodes, 2^45 when walked as a tree, as IR
/// passes do (the IR itself cannot build this compute in reasonable time).
inline DagArchive doubling_chain_archive() {
  DagArchive a = tiny_archive();
  a.nodes.resize(4);  // A, i, A[i], 1.0f
  for (uint64_t k = 0; k < 45; ++k) {
    NodeRecord add = tiny_archive().nodes[4];
    add.operands = {a.nodes.size() - 1, a.nodes.size() - 1};
    a.nodes.push_back(add);
  }
  NodeRecord compute = tiny_archive().nodes[5];
  compute.ref = a.nodes.size() - 1;
  a.nodes.push_back(compute);
  a.tensors = {0, a.nodes.size() - 1};
  return a;
}

/// A small writer for hand-made archive bytes.
struct Bytes {
  std::string s;
  Bytes& u8(uint8_t v) {
    s.push_back(static_cast<char>(v));
    return *this;
  }
  Bytes& varint(uint64_t v) {
    for (; v >= 0x80; v >>= 7) u8(static_cast<uint8_t>(v | 0x80));
    return u8(static_cast<uint8_t>(v));
  }
  Bytes& raw(std::string_view r) {
    s.append(r);
    return *this;
  }
  Bytes& header() { return raw("MRDDAG").u8(1).u8(0); }
};

}  // namespace mrd::serialize::testing

/// Checks that `archive` (a DagArchive) fails with `code` in both forms.
#define CHECK_BOTH_FORMS(archive, code, ...)                                                     \
  do {                                                                                           \
    CHECK(::mrd::serialize::testing::binary_outcome(                                             \
              ::mrd::serialize::write_binary_archive(archive), ##__VA_ARGS__) == (code));        \
    CHECK(::mrd::serialize::testing::json_outcome(::mrd::serialize::write_json_archive(archive), \
                                                  ##__VA_ARGS__) == (code));                     \
  } while (0)
