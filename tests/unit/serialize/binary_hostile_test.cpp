// Hostile binary archives at the byte level: truncation, header, lengths and counts.
#include <catch2/catch.hpp>

#include "tests/unit/serialize/dag_samples.h"
#include "tests/unit/serialize/outcome.h"

using namespace mrd;
using namespace mrd::serialize;
using namespace mrd::serialize::testing;

TEST_CASE("every proper prefix of a binary archive is Truncated", "[serialize]") {
  std::string bytes = dag_to_binary(conv2d_dag());
  REQUIRE(binary_outcome(bytes) == "ok");
  for (size_t n = 0; n < bytes.size(); ++n) {
    INFO("prefix of " << n << " of " << bytes.size() << " bytes");
    CHECK(binary_outcome(std::string_view(bytes).substr(0, n)) == "Truncated");
  }
}

TEST_CASE("bytes after the archive are Malformed", "[serialize]") {
  std::string bytes = dag_to_binary(matmul_dag());
  CHECK(binary_outcome(bytes + '\0') == "Malformed");
}

TEST_CASE("a wrong magic is BadMagic", "[serialize]") {
  std::string bytes = dag_to_binary(matmul_dag());
  bytes[0] = 'X';
  CHECK(binary_outcome(bytes) == "BadMagic");
  CHECK(binary_outcome("{\"format\": \"measurerd-dag\"}") == "BadMagic");
  CHECK(binary_outcome("MRX") == "BadMagic");
}

TEST_CASE("another format version is BadVersion", "[serialize]") {
  std::string bytes = dag_to_binary(matmul_dag());
  REQUIRE(bytes[6] == 1);
  bytes[6] = 3;
  CHECK(binary_outcome(bytes) == "BadVersion");
  bytes[6] = 0;
  CHECK(binary_outcome(bytes) == "BadVersion");
}

TEST_CASE("an unknown kind byte is UnknownNodeKind", "[serialize]") {
  std::string bytes = write_binary_archive(tiny_archive());
  REQUIRE(bytes[9] == 0);  // header (8), node count (1), then the first node's kind
  bytes[9] = 12;
  CHECK(binary_outcome(bytes) == "UnknownNodeKind");
  bytes[9] = static_cast<char>(0xff);
  CHECK(binary_outcome(bytes) == "UnknownNodeKind");
}

TEST_CASE("the input size limit is TooLarge", "[serialize]") {
  std::string bytes = dag_to_binary(matmul_dag());
  Limits l;
  l.max_input_bytes = bytes.size() - 1;
  CHECK(binary_outcome(bytes, l) == "TooLarge");
  l.max_input_bytes = bytes.size();
  CHECK(binary_outcome(bytes, l) == "ok");
}

TEST_CASE("huge declared lengths fail before anything is allocated", "[serialize]") {
  // A placeholder whose name claims 2^60 bytes.
  Bytes name;
  name.header().varint(1).u8(0).varint(uint64_t{1} << 60).raw("A");
  CHECK(binary_outcome(name.s) == "TooLarge");
  // Within a generous name limit, the length still cannot exceed the bytes left.
  Limits generous;
  generous.max_name_length = UINT32_MAX;
  Bytes name4g;
  name4g.header().varint(1).u8(0).varint(UINT32_MAX).raw("A");
  CHECK(binary_outcome(name4g.s, generous) == "Truncated");
  // A shape of 2^60 dimensions.
  Bytes shape;
  shape.header().varint(1).u8(0).varint(1).raw("A").u8(3).varint(uint64_t{1} << 60);
  CHECK(binary_outcome(shape.s) == "TooLarge");
  // An operand list of 2^60 entries.
  Bytes operands;
  operands.header().varint(1).u8(static_cast<uint8_t>(NodeKind::Binary)).u8(3).u8(0);
  operands.varint(uint64_t{1} << 60);
  CHECK(binary_outcome(operands.s) == "WrongArity");
  // A node count of 2^60, with the default limit and with none.
  Bytes nodes;
  nodes.header().varint(uint64_t{1} << 60);
  CHECK(binary_outcome(nodes.s) == "TooManyNodes");
  Limits unlimited;
  unlimited.max_nodes = UINT64_MAX;
  CHECK(binary_outcome(nodes.s, unlimited) == "Truncated");
  // A tensor count of 2^60.
  Bytes tensors;
  tensors.header().varint(0).varint(uint64_t{1} << 60);
  CHECK(binary_outcome(tensors.s) == "TooManyNodes");
}

TEST_CASE("a varint longer than 64 bits is Malformed", "[serialize]") {
  Bytes b;
  b.header();
  for (int i = 0; i < 11; ++i) b.u8(0xff);
  CHECK(binary_outcome(b.s) == "Malformed");
  Bytes max;  // 2^64 - 1 is still a valid varint, and far beyond the node limit
  max.header();
  for (int i = 0; i < 9; ++i) max.u8(0xff);
  max.u8(0x01);
  CHECK(binary_outcome(max.s) == "TooManyNodes");
}

TEST_CASE("an empty archive is an empty tensor list", "[serialize]") {
  Bytes b;
  b.header().varint(0).varint(0);
  CHECK(dag_from_binary(b.s).empty());
  CHECK(dag_to_binary({}) == b.s);
}

TEST_CASE("random byte flips never crash the binary loader", "[serialize]") {
  // Deterministic: each position of the archive, set to a few values in turn.
  std::string bytes = dag_to_binary(softmax_dag());
  size_t rejected = 0;
  for (size_t pos = 0; pos < bytes.size(); ++pos) {
    for (uint8_t v : {0x00, 0x01, 0x07, 0x7f, 0x80, 0xff}) {
      std::string b = bytes;
      if (static_cast<uint8_t>(b[pos]) == v) continue;
      b[pos] = static_cast<char>(v);
      if (binary_outcome(b) != "ok") ++rejected;
    }
  }
  CHECK(rejected > 0);
}
