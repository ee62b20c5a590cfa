// The acceptance test of our TVM semantics: every state (13 per workload) recorded by TVM's
// auto_scheduler in tests/data/tvm-reference is replayed, lowered, run on the primfunc
// evaluator with the reference fill, and compared with TVM's own output checksums; the loop
// structure is compared with TVM's lowered TIR (loops left after vectorizing and unrolling,
// sizes of cache and attached allocations).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "common/ir/expr_functor.h"
#include "common/ir/stmt_functor.h"
#include "common/schedule/transform_steps.h"
#include "tests/unit/lower/lower_test_util.h"

using namespace mrd;
using nlohmann::json;

namespace {

std::string ref_path(const std::string& file) {
  return std::string(MEASURERD_TVM_REFERENCE_DIR) + "/" + file;
}

std::vector<json> read_records(const std::string& name) {
  std::ifstream in(ref_path(name + ".records.json"));
  REQUIRE(in.good());
  std::vector<json> out;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) out.push_back(json::parse(line));
  }
  return out;
}

dag::ComputeDAG dag_of_key(const std::string& key) {
  json k = json::parse(key);
  std::vector<registry::WorkloadArg> args;
  for (size_t i = 1; i < k.size(); ++i) {
    if (k[i].is_number_integer()) {
      args.emplace_back(k[i].get<int64_t>());
    } else if (k[i].is_number()) {
      args.emplace_back(k[i].get<double>());
    } else {
      args.emplace_back(k[i].get<std::string>());
    }
  }
  return lower::testing::builtin_dag(k[0].get<std::string>(), args);
}

/// Elements of each allocation in our function, by TIR-style name (dots become '_').
class AllocCollector : public ir::StmtVisitor {
 public:
  std::map<std::string, int64_t> sizes;
  void run(const ir::Stmt& s) { visit(s); }

 protected:
  void visit_(const ir::AllocateNode* op, const ir::Stmt& self) override {
    std::string n = op->buffer->name;
    std::replace(n.begin(), n.end(), '.', '_');
    sizes[n] = op->buffer->num_elements();
    StmtVisitor::visit_(op, self);
  }
};

/// True when a condition inside `body` depends on v (TVM's vectorizer then keeps a serial loop).
bool lane_varying_condition(const ir::Stmt& body, const ir::VarNode* v) {
  bool found = false;
  auto uses = [&](const ir::Expr& e) {
    bool u = false;
    ir::post_order_visit(e, [&](const ir::Expr& x) { u |= x.as<ir::VarNode>() == v; });
    return u;
  };
  struct Finder : ir::StmtVisitor {
    std::function<void(const ir::Expr&)> on_expr;
    std::function<void(const ir::Expr&)> on_cond;
    void run(const ir::Stmt& s) { visit(s); }
    void visit_expr(const ir::Expr& e) override { on_expr(e); }
    void visit_(const ir::IfThenElseNode* op, const ir::Stmt& self) override {
      on_cond(op->cond);
      StmtVisitor::visit_(op, self);
    }
  } f;
  f.on_cond = [&](const ir::Expr& c) { found |= uses(c); };
  f.on_expr = [&](const ir::Expr& e) {
    ir::post_order_visit(e, [&](const ir::Expr& x) {
      const ir::CallNode* c = x.as<ir::CallNode>();
      if (c && c->op == ir::CallOp::IfThenElse) found |= uses(c->args[0]);
    });
  };
  f.run(body);
  return found;
}

/// Loops that stay loops after TVM's vectorizer and unroller: serial and parallel ones, and
/// vectorized loops the vectorizer had to scalarize.
class LoopCounter : public ir::StmtVisitor {
 public:
  int loops = 0;
  int parallel = 0;
  void run(const ir::Stmt& s) { visit(s); }

 protected:
  void visit_(const ir::ForNode* op, const ir::Stmt& self) override {
    loops += op->for_kind == ir::ForKind::Serial || op->for_kind == ir::ForKind::Parallel ||
             (op->for_kind == ir::ForKind::Vectorized &&
              lane_varying_condition(op->body, op->var.as<ir::VarNode>()));
    parallel += op->for_kind == ir::ForKind::Parallel;
    StmtVisitor::visit_(op, self);
  }
};

/// Per state: the number of loops in the TIR (`for a, b in T.grid(...)` counts 2), and of
/// parallel loops.
std::vector<std::pair<int, int>> tir_loops(const std::string& name) {
  std::ifstream in(ref_path(name + ".tir.txt"));
  std::vector<std::pair<int, int>> out;
  std::string line;
  std::regex loop(R"re(^\s*for (.*) in (T\.grid|T\.parallel|range)\()re");
  while (std::getline(in, line)) {
    if (line.rfind("### state", 0) == 0) {
      out.emplace_back(0, 0);
      continue;
    }
    std::smatch m;
    if (!out.empty() && std::regex_search(line, m, loop)) {
      std::string vars = m[1];
      out.back().first += 1 + static_cast<int>(std::count(vars.begin(), vars.end(), ','));
      out.back().second += m[2] == "T.parallel";
    }
  }
  return out;
}

/// Per state: the TIR's allocations of cache (`*_local`) and attached padding stages, by name,
/// in elements (vector types "float32xL" count L each).
std::vector<std::map<std::string, int64_t>> tir_allocations(const std::string& name) {
  std::ifstream in(ref_path(name + ".tir.txt"));
  std::vector<std::map<std::string, int64_t>> out;
  std::string line;
  std::regex alloc(R"re((\w+) = T\.allocate\(\[(\d+)\], "float32(x(\d+))?", "(\w+)"\))re");
  while (std::getline(in, line)) {
    if (line.rfind("### state", 0) == 0) {
      out.emplace_back();
      continue;
    }
    std::smatch m;
    if (!out.empty() && std::regex_search(line, m, alloc)) {
      std::string n = m[1];
      bool local = m[5] == "local";
      if (!local && n != "pad_temp") continue;
      int64_t elems = std::stoll(m[2]) * (m[4].matched ? std::stoll(m[4]) : 1);
      out.back()[n] = elems;
    }
  }
  return out;
}

void check_workload(const std::string& name) {
  std::vector<json> records = read_records(name);
  REQUIRE(records.size() == 13);
  std::ifstream cin(ref_path(name + ".check.json"));
  json check = json::parse(cin);
  std::vector<std::map<std::string, int64_t>> tir_allocs = tir_allocations(name);
  REQUIRE(tir_allocs.size() == records.size());
  std::vector<std::pair<int, int>> tvm_loops = tir_loops(name);
  REQUIRE(tvm_loops.size() == records.size());
  for (size_t state = 0; state < records.size(); ++state) {
    INFO(name << " state " << state);
    const json& rec = records[state];
    dag::ComputeDAG dag = dag_of_key(rec["i"][0][0].get<std::string>());
    const json& steps_json = rec["i"][1][1];
    std::vector<schedule::Step> steps = schedule::steps_from_json(steps_json);
    CHECK(schedule::steps_to_json(steps).dump() == steps_json.dump());

    ir::PrimFunc f = lower::lower(dag, steps);
    LoopCounter lc;
    lc.run(f.body);
    CHECK(lc.loops == tvm_loops[state].first);
    CHECK(lc.parallel == tvm_loops[state].second);
    AllocCollector ours;
    ours.run(f.body);
    for (const auto& [alloc, elems] : tir_allocs[state]) {
      INFO("allocation " << alloc);
      REQUIRE(ours.sizes.count(alloc) == 1);
      CHECK(ours.sizes.at(alloc) == elems);
    }
    std::vector<interp::HostTensor> inputs;
    for (const ir::Tensor& t : dag.tensors()) {
      if (t->is_placeholder()) inputs.push_back(interp::make_reference_input(*t.op()));
    }
    std::vector<std::vector<double>> outs = lower::testing::run_lowered(dag, f, inputs);
    REQUIRE(!outs.empty());
    const std::vector<double>& out = outs.back();
    double sum = 0;
    for (double v : out) sum += v;
    CHECK(std::fabs(sum - check["output_sum"].get<double>()) < 1e-4);
    for (auto& [idx, value] : check["samples"].items()) {
      size_t i = std::stoul(idx);
      REQUIRE(i < out.size());
      INFO("sample " << i);
      CHECK(std::fabs(out[i] - value.get<double>()) < 1e-5);
    }
  }
}

}  // namespace

TEST_CASE("tvm reference: matmul, all 13 states", "[lower][tvm-reference]") {
  check_workload("matmul");
}
TEST_CASE("tvm reference: matmul_add, all 13 states", "[lower][tvm-reference]") {
  check_workload("matmul_add");
}
TEST_CASE("tvm reference: matmul_relu_relu, all 13 states", "[lower][tvm-reference]") {
  check_workload("matmul_relu_relu");
}
TEST_CASE("tvm reference: conv2d_nchw, all 13 states", "[lower][tvm-reference]") {
  check_workload("conv2d_nchw");
}
TEST_CASE("tvm reference: softmax, all 13 states", "[lower][tvm-reference]") {
  check_workload("softmax");
}
TEST_CASE("tvm reference: dense_bias_relu, all 13 states", "[lower][tvm-reference]") {
  check_workload("dense_bias_relu");
}
TEST_CASE("tvm reference: batch_matmul, all 13 states", "[lower][tvm-reference]") {
  check_workload("batch_matmul");
}
