#include "common/dag/structural_hash.h"

#include <catch2/catch.hpp>

#include "common/dag/workload_key.h"
#include "common/ir/te.h"
#include "common/registry/builtin_workloads.h"
#include "common/util/md5.h"

using namespace mrd;
using namespace mrd::ir;
namespace builtin = mrd::registry::builtin;

namespace {

/// A matmul built by hand with the given names and shapes.
std::vector<Tensor> hand_matmul(int64_t n, int64_t l, int64_t m, bool add_instead = false) {
  Tensor a = placeholder({n, l}, "A");
  Tensor b = placeholder({l, m}, "B");
  IterVar k = reduce_axis(0, l, "k");
  Tensor c =
      compute({n, m},
              [&](Var i, Var j) {
                return add_instead ? sum(a(i, k) + b(k, j), {k}) : sum(a(i, k) * b(k, j), {k});
              },
              "C", {"i", "j"});
  return {a, b, c};
}

}  // namespace

TEST_CASE("md5 matches RFC 1321", "[dag]") {
  CHECK(md5_hex("") == "d41d8cd98f00b204e9800998ecf8427e");
  CHECK(md5_hex("abc") == "900150983cd24fb0d6963f7d28e17f72");
  CHECK(md5_hex("The quick brown fox jumps over the lazy dog") ==
        "9e107d9d372bb6826bd81d3542a419d6");
  CHECK(md5_hex(std::string(56, 'a')) == "3b0c8ac703f828b04c6c197006d17218");
  CHECK(md5_hex(std::string(64, 'a')) == "014842d480b571495a4a0363793f7367");
}

TEST_CASE("separately built identical DAGs are equal and hash equal", "[dag]") {
  auto x = builtin::matmul(64, 64, 64, DType::Float32);
  auto y = builtin::matmul(64, 64, 64, DType::Float32);
  CHECK_FALSE(x[2].same_as(y[2]));
  CHECK(dag::structural_equal(x, y));
  CHECK(dag::structural_hash(x) == dag::structural_hash(y));
  CHECK(dag::structural_equal(x, hand_matmul(64, 64, 64)));
  for (auto make :
       {+[] { return builtin::conv2d_nchw(1, 3, 8, 8, 4, 3, 3, 1, 1); },
        +[] { return builtin::softmax(4, 9); }, +[] { return builtin::layer_norm(4, 9); }}) {
    CHECK(dag::structural_hash(make()) == dag::structural_hash(make()));
  }
}

TEST_CASE("the hash changes with a shape, an op, a dtype or the sharing", "[dag]") {
  std::string h = dag::structural_hash(hand_matmul(64, 64, 64));
  CHECK(dag::structural_hash(hand_matmul(64, 64, 32)) != h);
  CHECK(dag::structural_hash(hand_matmul(64, 32, 64)) != h);
  CHECK(dag::structural_hash(hand_matmul(64, 64, 64, true)) != h);
  CHECK_FALSE(dag::structural_equal(hand_matmul(64, 64, 64, true), hand_matmul(64, 64, 64)));
  CHECK(dag::structural_hash(builtin::matmul(64, 64, 64, DType::Float64)) != h);

  // The list's A is not the A that C reads (the seed's broken round trip): not equal.
  auto good = hand_matmul(8, 8, 8);
  auto broken = good;
  broken[0] = placeholder({8, 8}, "A");
  CHECK_FALSE(dag::structural_equal(good, broken));
  CHECK(dag::structural_hash(good) != dag::structural_hash(broken));
}

TEST_CASE("variables are matched by binding, not by name or object", "[dag]") {
  Tensor a = placeholder({4, 4}, "A");
  Tensor t1 = compute({4, 4}, [&](Var i, Var j) { return a(i, j); }, "T", {"i", "j"});
  Tensor t2 = compute({4, 4}, [&](Var i, Var j) { return a(i, j); }, "T", {"i", "j"});
  Tensor swapped = compute({4, 4}, [&](Var i, Var j) { return a(j, i); }, "T", {"i", "j"});
  CHECK(dag::structural_equal({a, t1}, {a, t2}));
  CHECK_FALSE(dag::structural_equal({a, t1}, {a, swapped}));
  // Both axes named "i": still told apart by their binding.
  Tensor same_names = compute({4, 4}, [&](Var i, Var j) { return a(i, j); }, "T", {"i", "i"});
  Tensor same_names_swapped =
      compute({4, 4}, [&](Var i, Var j) { return a(j, i); }, "T", {"i", "i"});
  CHECK_FALSE(dag::structural_equal({a, same_names}, {a, same_names_swapped}));
}

TEST_CASE("the hash of matmul 64x64x64 is fixed", "[dag]") {
  // A change here changes every tensor workload key; update only on purpose.
  CHECK(dag::structural_hash(builtin::matmul(64, 64, 64, DType::Float32)) ==
        "649c50c82c8960be0e92bde612522d3c");
}

TEST_CASE("tensor workload keys are json.dumps([hash, *io_shapes])", "[dag]") {
  auto t = builtin::matmul(64, 32, 16, DType::Float32);
  CHECK(dag::tensor_workload_key(t) ==
        "[\"" + dag::structural_hash(t) + "\", [64, 32], [32, 16], [64, 16]]");
  auto s = builtin::softmax(3, 5);
  CHECK(dag::tensor_workload_key(s) == "[\"" + dag::structural_hash(s) + "\", [3, 5], [3, 5]]");
}
