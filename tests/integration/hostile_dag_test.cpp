// Hostile DAGs through a real daemon connection. Each malformed archive of the serialization
// tests travels as the tensor-workload archive inside a well-formed task and MeasureRequest:
// the worker refuses it with INSTANTIATION_ERROR naming the decode error, the daemon and its
// worker stay up, and good inputs are measured afterwards. Declared counts far beyond the
// bytes sent are refused by the limit checks before anything is allocated. Frames over
// --max-body and requests over max_states get their protocol errors.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "common/measure/task.h"
#include "common/proto/codec.h"
#include "common/serialize/archive_io.h"
#include "daemon_fixture.h"
#include "raw_connection.h"
#include "tests/unit/serialize/dag_samples.h"
#include "tests/unit/serialize/outcome.h"

using namespace mrd;
using namespace mrd::testing;
using measure::MeasureErrorNo;
using measure::MeasureResult;
using serialize::DagArchive;
using serialize::NodeKind;
using serialize::NodeRecord;
using serialize::testing::binary_outcome;
using serialize::testing::Bytes;
using serialize::testing::doubling_chain_archive;
using serialize::testing::tiny_archive;

namespace {

template <class T>
void put(std::string& out, T v) {
  for (size_t i = 0; i < sizeof(T); ++i)
    out.push_back(static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff));
}

/// A tensor workload's bytes around `archive`, laid out as the workload codec documents.
std::string workload_bytes(std::string_view archive, std::string_view key = "hostile",
                           uint64_t declared_archive = UINT64_MAX) {
  std::string w = "MRDW";
  put<uint8_t>(w, 1);  // version
  put<uint8_t>(w, 2);  // kind: tensors
  put<uint32_t>(w, static_cast<uint32_t>(key.size()));
  w += key;
  put<uint64_t>(w, declared_archive == UINT64_MAX ? archive.size() : declared_archive);
  w += archive;
  return w;
}

/// A task's bytes around `workload`, laid out as the task format documents.
std::string task_bytes(std::string_view workload, uint64_t declared_workload = UINT64_MAX,
                       std::string_view target = "llvm -keys=cpu") {
  std::string t = "MRDT";
  put<uint8_t>(t, 2);
  put<uint32_t>(t, static_cast<uint32_t>(target.size()));
  t += target;
  put<int32_t>(t, 0);   // num_cores
  put<int32_t>(t, 64);  // vector_unit_bytes
  put<int32_t>(t, 64);  // cache_line_bytes
  put<uint8_t>(t, 1);   // layout_rewrite_option
  put<uint64_t>(t, declared_workload == UINT64_MAX ? workload.size() : declared_workload);
  t += workload;
  return t;
}

std::string archive_task(std::string_view archive) {
  return task_bytes(workload_bytes(archive));
}

struct HostileCase {
  std::string name;
  std::string archive;  ///< the DAG archive, or the whole task for the task-layer cases
  std::string code;     ///< the DecodeErrc name the worker must report
};

std::string tiny_with(void (*edit)(DagArchive&)) {
  DagArchive a = tiny_archive();
  edit(a);
  return serialize::write_binary_archive(a);
}

/// Every rule of the archive format, broken once (the cases of the serialization tests).
std::vector<HostileCase> malformed_archives() {
  using namespace serialize::testing;
  std::vector<HostileCase> out;
  std::string conv = serialize::dag_to_binary(conv2d_dag());
  out.push_back({"truncated", conv.substr(0, conv.size() / 2), "Truncated"});
  out.push_back({"trailing byte", conv + '\0', "Malformed"});
  std::string magic = conv;
  magic[0] = 'X';
  out.push_back({"wrong magic", magic, "BadMagic"});
  std::string version = conv;
  version[6] = 3;
  out.push_back({"format version 3", version, "BadVersion"});
  std::string kind = serialize::write_binary_archive(tiny_archive());
  kind[9] = 12;
  out.push_back({"unknown node kind", kind, "UnknownNodeKind"});
  out.push_back({"dangling operand", tiny_with([](DagArchive& a) { a.nodes[2].operands[0] = 99; }),
                 "DanglingId"});
  out.push_back(
      {"dangling tensor", tiny_with([](DagArchive& a) { a.tensors[1] = 6; }), "DanglingId"});
  out.push_back({"forward reference", tiny_with([](DagArchive& a) { a.nodes[4].operands[0] = 5; }),
                 "ForwardId"});
  out.push_back({"a read of its own reader", tiny_with([](DagArchive& a) { a.nodes[2].ref = 5; }),
                 "ForwardId"});
  out.push_back(
      {"self reference", tiny_with([](DagArchive& a) { a.nodes[4].operands[1] = 4; }), "Cycle"});
  out.push_back(
      {"compute of itself", tiny_with([](DagArchive& a) { a.nodes[5].ref = 5; }), "Cycle"});
  out.push_back({"two indices into a rank-1 tensor", tiny_with([](DagArchive& a) {
                   a.nodes[2].operands = {1, 1};
                 }),
                 "WrongArity"});
  out.push_back({"100 operands",
                 tiny_with([](DagArchive& a) { a.nodes[4].operands.assign(100, 2); }),
                 "WrongArity"});
  out.push_back({"floordiv on floats", tiny_with([](DagArchive& a) {
                   a.nodes[4].op = serialize::binary_op_code(ir::BinaryOp::FloorDiv);
                 }),
                 "DTypeMismatch"});
  out.push_back({"float32 + float64", tiny_with([](DagArchive& a) {
                   a.nodes[3].dtype = serialize::dtype_code(ir::DType::Float64);
                 }),
                 "DTypeMismatch"});
  out.push_back(
      {"zero dimension", tiny_with([](DagArchive& a) { a.nodes[0].shape = {0}; }), "BadShape"});
  out.push_back({"negative extent",
                 tiny_with([](DagArchive& a) { a.nodes[5].axis[0].extent = -1; }), "BadShape"});
  out.push_back({"shape overflowing int64", tiny_with([](DagArchive& a) {
                   a.nodes[0].shape = {int64_t{1} << 40, int64_t{1} << 40};
                 }),
                 "TooLarge"});
  out.push_back({"2^32 elements", tiny_with([](DagArchive& a) {
                   a.nodes[0].shape = {int64_t{1} << 31, 2};
                 }),
                 "TooLarge"});
  out.push_back(
      {"rank 9", tiny_with([](DagArchive& a) { a.nodes[0].shape.assign(9, 1); }), "TooLarge"});
  out.push_back({"name of 257 bytes",
                 tiny_with([](DagArchive& a) { a.nodes[5].name = std::string(257, 'x'); }),
                 "TooLarge"});
  out.push_back({"doubling chain", serialize::write_binary_archive(doubling_chain_archive()),
                 "TooManyNodes"});
  {
    ir::Tensor A = ir::placeholder({4}, "A");
    ir::Tensor B = ir::compute(
        {4},
        [&](ir::Var i) {
          ir::Expr x = A(i);
          for (int k = 0; k < 600; ++k) x = x + 1.0f;
          return x;
        },
        "B");
    out.push_back({"600-deep expression", serialize::dag_to_binary({A, B}), "TooDeep"});
  }
  out.push_back({"an expression as a tensor", tiny_with([](DagArchive& a) { a.tensors[1] = 4; }),
                 "Malformed"});
  out.push_back(
      {"unknown dtype", tiny_with([](DagArchive& a) { a.nodes[0].dtype = 10; }), "Malformed"});
  Bytes varint;
  varint.header();
  for (int i = 0; i < 11; ++i) varint.u8(0xff);
  out.push_back({"varint of 77 bits", varint.s, "Malformed"});
  return out;
}

/// Counts and lengths that claim far more than the bytes sent: each must be refused by its
/// limit check (or the bytes-left check) before anything of that size is allocated.
std::vector<HostileCase> oversized_counts() {
  std::vector<HostileCase> out;
  Bytes name;
  name.header().varint(1).u8(0).varint(uint64_t{1} << 60).raw("A");
  out.push_back({"name of 2^60 bytes", name.s, "TooLarge"});
  Bytes shape;
  shape.header().varint(1).u8(0).varint(1).raw("A").u8(3).varint(uint64_t{1} << 60);
  out.push_back({"2^60 dimensions", shape.s, "TooLarge"});
  Bytes operands;
  operands.header().varint(1).u8(static_cast<uint8_t>(NodeKind::Binary)).u8(3).u8(0);
  operands.varint(uint64_t{1} << 60);
  out.push_back({"2^60 operands", operands.s, "WrongArity"});
  Bytes nodes;
  nodes.header().varint(uint64_t{1} << 60);
  out.push_back({"2^60 nodes", nodes.s, "TooManyNodes"});
  Bytes tensors;
  tensors.header().varint(0).varint(uint64_t{1} << 60);
  out.push_back({"2^60 tensors", tensors.s, "TooManyNodes"});
  Bytes at_limit;  // within max_nodes, but not within the bytes that follow
  at_limit.header().varint(serialize::Limits{}.max_nodes);
  out.push_back({"2^20 nodes in 0 bytes", at_limit.s, "Truncated"});
  return out;
}

/// Peak and current resident set of a process, in KiB, from /proc.
struct Memory {
  long hwm_kib = -1;
  long rss_kib = -1;
};
Memory memory_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  Memory m;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmHWM:", 0) == 0) m.hwm_kib = std::stol(line.substr(6));
    if (line.rfind("VmRSS:", 0) == 0) m.rss_kib = std::stol(line.substr(6));
  }
  return m;
}

/// Measures one state of `task` and returns its only result.
MeasureResult measure_one(client::Client& c, const std::string& task) {
  std::vector<MeasureResult> results;
  auto done = c.measure(task, {"[]"}, quick_options(),
                        [&](uint32_t, const MeasureResult& r) { results.push_back(r); });
  REQUIRE(done.count == 1);
  REQUIRE(results.size() == 1);
  return results[0];
}

int32_t only_worker(client::Client& c) {
  auto workers = c.status().worker_list;
  REQUIRE(workers.size() == 1);
  return workers[0].pid;
}

}  // namespace

TEST_CASE("the task bytes built for the hostile cases are what task_to_binary writes") {
  auto dag = serialize::testing::matmul_dag();
  measure::Task t;
  t.workload = registry::TensorWorkload{"mm-key", dag};
  CHECK(measure::task_to_binary(t) ==
        task_bytes(workload_bytes(serialize::dag_to_binary(dag), "mm-key")));
}

TEST_CASE("every malformed DAG over the socket is INSTANTIATION_ERROR naming its decode error") {
  Daemon d(1);
  client::Client c(d.socket());
  // The same wrapping around a good archive measures: what fails below is the archive.
  std::string good = archive_task(serialize::dag_to_binary(serialize::testing::matmul_dag()));
  REQUIRE(measure_one(c, good).error_no == MeasureErrorNo::NoError);
  int32_t worker = only_worker(c);

  auto cases = malformed_archives();
  for (const auto& h : cases) {
    INFO(h.name);
    REQUIRE(binary_outcome(h.archive) == h.code);  // the case is what it claims to be
    MeasureResult r = measure_one(c, archive_task(h.archive));
    CHECK(r.error_no == MeasureErrorNo::InstantiationError);
    CHECK(r.error_msg.rfind(h.code + ": ", 0) == 0);
  }
  // Hostile states (the schedule's JSON) next to a good task: nesting far deeper than any
  // steps list, and not JSON at all.
  for (const std::string& state : {std::string(100000, '[') + std::string(100000, ']'),
                                   std::string(1000000, '['), std::string("{\"SP\": 1e999}")}) {
    INFO("state of " << state.size() << " bytes");
    std::vector<MeasureResult> results;
    c.measure(good, {state}, quick_options(),
              [&](uint32_t, const MeasureResult& r) { results.push_back(r); });
    REQUIRE(results.size() == 1);
    CHECK(results[0].error_no == MeasureErrorNo::InstantiationError);
  }
  // The daemon and its worker are the same processes, and still measure.
  CHECK(process_exists(d.pid()));
  CHECK(only_worker(c) == worker);
  CHECK(measure_one(c, good).error_no == MeasureErrorNo::NoError);
  CHECK(measure_one(c, measure::task_to_binary(matmul_task(16))).error_no ==
        MeasureErrorNo::NoError);
  CHECK(d.log().find("exited") == std::string::npos);  // no worker died or was replaced
}

TEST_CASE("declared counts beyond the bytes sent are refused before allocation") {
  Daemon d(1);
  client::Client c(d.socket());
  std::string good = measure::task_to_binary(matmul_task(16));
  REQUIRE(measure_one(c, good).error_no == MeasureErrorNo::NoError);
  int32_t worker = only_worker(c);
  Memory before = memory_of(worker);
  REQUIRE(before.hwm_kib > 0);

  for (const auto& h : oversized_counts()) {
    INFO(h.name);
    REQUIRE(binary_outcome(h.archive) == h.code);
    MeasureResult r = measure_one(c, archive_task(h.archive));
    CHECK(r.error_no == MeasureErrorNo::InstantiationError);
    CHECK(r.error_msg.rfind(h.code + ": ", 0) == 0);
    CHECK(r.error_msg.find("bad_alloc") == std::string::npos);
  }
  // The same in the task and workload layers around the archive.
  std::string small = serialize::dag_to_binary(serialize::testing::matmul_dag());
  std::string huge_key = "MRDW";
  put<uint8_t>(huge_key, 1);
  put<uint8_t>(huge_key, 2);
  put<uint32_t>(huge_key, 1u << 31);
  huge_key += "k";
  std::string huge_target = "MRDT";
  put<uint8_t>(huge_target, 1);
  put<uint32_t>(huge_target, UINT32_MAX);
  huge_target += "llvm";
  std::vector<HostileCase> tasks = {
      {"task: workload of 2^62 bytes", task_bytes(workload_bytes(small), uint64_t{1} << 62),
       "Truncated"},
      {"workload: archive of 2^62 bytes",
       task_bytes(workload_bytes(small, "hostile", uint64_t{1} << 62)), "Truncated"},
      {"workload: key of 2^31 bytes", task_bytes(huge_key), "TooLarge"},
      {"task: target of 4 GiB", huge_target, "TooLarge"},
  };
  for (const auto& h : tasks) {
    INFO(h.name);
    MeasureResult r = measure_one(c, h.archive);
    CHECK(r.error_no == MeasureErrorNo::InstantiationError);
    CHECK(r.error_msg.rfind(h.code + ": ", 0) == 0);
  }
  Memory after = memory_of(worker);
  INFO("worker VmHWM " << before.hwm_kib << " -> " << after.hwm_kib << " KiB, VmRSS "
                       << before.rss_kib << " -> " << after.rss_kib << " KiB");
  CHECK(only_worker(c) == worker);
  CHECK(after.hwm_kib - before.hwm_kib < 64 * 1024);  // no allocation of the sizes claimed
  CHECK(measure_one(c, good).error_no == MeasureErrorNo::NoError);
}

TEST_CASE("a body over --max-body and a request over max_states get their protocol errors") {
  constexpr uint32_t kMaxBody = 64 * 1024;
  Daemon d(1, {"--max-body", std::to_string(kMaxBody)});
  client::Client c(d.socket());
  CHECK(c.welcome().max_body == kMaxBody);
  CHECK(c.welcome().max_states == 4096);

  // A request whose body is exactly the maximum is read (its task is refused by the worker);
  // one byte more is BODY_TOO_LARGE before the body is read, and the connection closes.
  auto request_of_body = [](size_t body_size) {
    proto::MeasureRequest req;
    req.request_id = 1;
    req.states = {"[]"};
    req.options = quick_options();
    size_t empty = proto::encode_body(req).size();
    req.task.assign(body_size - empty, 'x');
    REQUIRE(proto::encode_body(req).size() == body_size);
    return proto::encode(req);
  };
  {
    RawConnection raw(d.socket());
    raw.send(proto::encode(proto::Hello{}));
    raw.send(request_of_body(kMaxBody));
    auto frames = raw.read_until(proto::MessageType::RequestDone);
    REQUIRE(frames.size() == 3);  // Welcome, the result, RequestDone
    auto result = proto::decode<proto::MeasureResultMsg>(frames[1].body);
    CHECK(result.result.error_no == MeasureErrorNo::InstantiationError);
    CHECK(result.result.error_msg.rfind("BadMagic: ", 0) == 0);
  }
  {
    RawConnection raw(d.socket());
    raw.send(proto::encode(proto::Hello{}));
    raw.send(request_of_body(kMaxBody + 1).substr(0, proto::kHeaderSize));  // the header only
    auto frames = raw.read_to_end();
    auto errors = errors_in(frames);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].code == uint16_t(proto::ErrorCode::BodyTooLarge));
    CHECK(errors[0].message.find(std::to_string(kMaxBody + 1)) != std::string::npos);
    CHECK(errors[0].message.find(std::to_string(kMaxBody)) != std::string::npos);
  }
  // max_states + 1 states: refused as a whole, nothing queued.
  {
    RawConnection raw(d.socket());
    raw.send(proto::encode(proto::Hello{}));
    proto::MeasureRequest req;
    req.request_id = 7;
    req.task = measure::task_to_binary(matmul_task(16));
    req.states.assign(4097, "[]");
    req.options = quick_options();
    std::string frame = proto::encode(req);
    REQUIRE(frame.size() - proto::kHeaderSize <= kMaxBody);
    raw.send(frame);
    auto errors = errors_in(raw.read_to_end());
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].code == uint16_t(proto::ErrorCode::MalformedBody));
    CHECK(errors[0].message.find("limit") != std::string::npos);
  }
  CHECK(c.status().completed == 1);  // only the request of exactly max_body was measured
  CHECK(process_exists(d.pid()));
  CHECK(measure_one(c, measure::task_to_binary(matmul_task(16))).error_no ==
        MeasureErrorNo::NoError);
}
