// Writes the seed corpus of every fuzz target from real objects: archives of built-in
// workloads, tasks, frames of every message, the example task file and reference records,
// each with a few damaged copies. Run by hand after a format change:
//   fuzz_make_corpus <source dir> <corpus dir>
// The committed corpus is what the replay tests run; this program is not part of the suite.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "common/measure/task.h"
#include "common/proto/codec.h"
#include "common/record/record.h"
#include "common/registry/builtin_workloads.h"
#include "common/registry/registry.h"
#include "common/serialize/serialize.h"

using namespace mrd;
namespace fs = std::filesystem;

namespace {

fs::path g_root;

void put(const std::string& target, const std::string& name, const std::string& bytes) {
  fs::create_directories(g_root / target);
  std::ofstream(g_root / target / name, std::ios::binary) << bytes;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<std::string> lines_of(const fs::path& p) {
  std::istringstream in(read_file(p));
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) lines.push_back(l);
  return lines;
}

/// The bytes with the one at `pos` (from the end when negative) changed.
std::string flip(std::string s, long pos, char to) {
  s[pos < 0 ? s.size() + pos : pos] = to;
  return s;
}

registry::FunctionWorkload matmul_fn() {
  return {"matmul", {int64_t(8), int64_t(4), int64_t(6), std::string("float32")}};
}

registry::TensorWorkload tensor_workload(std::vector<ir::Tensor> tensors) {
  registry::TensorWorkload w{"", std::move(tensors)};
  w.key = registry::workload_key(w);
  return w;
}

measure::Task task_of(registry::Workload w) {
  measure::Task t;
  t.workload = std::move(w);
  t.hardware = {4, 64, 64};
  return t;
}

void dag_seeds() {
  using namespace registry::builtin;
  struct Sample {
    const char* name;
    std::vector<ir::Tensor> tensors;
  };
  std::vector<Sample> samples = {
      {"matmul", matmul(4, 3, 2, ir::DType::Float32)},
      {"softmax", softmax(2, 5)},
      {"conv2d", conv2d_nchw(1, 2, 5, 5, 2, 3, 3, 1, 1)},
  };
  for (const auto& s : samples) {
    put("dag_binary", std::string("seed-") + s.name, serialize::dag_to_binary(s.tensors));
    put("dag_json", std::string("seed-") + s.name, serialize::dag_to_json(s.tensors));
  }
  std::string bin = serialize::dag_to_binary(samples[0].tensors);
  put("dag_binary", "bad-truncated", bin.substr(0, bin.size() / 2));
  put("dag_binary", "bad-magic", flip(bin, 0, 'X'));
  put("dag_binary", "bad-last-byte", flip(bin, -1, '\x7f'));
  std::string text = serialize::dag_to_json(samples[0].tensors);
  put("dag_json", "bad-truncated", text.substr(0, text.size() / 2));
  put("dag_json", "bad-empty-object", "{}");
}

void workload_and_task_seeds() {
  registry::Workload fn = matmul_fn();
  registry::Workload fn_mixed =
      registry::FunctionWorkload{"conv2d_nchw", {int64_t(1), int64_t(2), int64_t(5), int64_t(5),
                                                 int64_t(2), int64_t(3), int64_t(3), int64_t(1),
                                                 int64_t(1)}};
  registry::Workload fn_float = registry::FunctionWorkload{"unknown", {1.5, std::string("x")}};
  registry::Workload tw = tensor_workload(registry::builtin::softmax(2, 3));
  put("workload_binary", "seed-function", registry::workload_to_binary(fn));
  put("workload_binary", "seed-conv2d", registry::workload_to_binary(fn_mixed));
  put("workload_binary", "seed-unknown-function", registry::workload_to_binary(fn_float));
  put("workload_binary", "seed-tensors", registry::workload_to_binary(tw));
  std::string w = registry::workload_to_binary(fn);
  put("workload_binary", "bad-truncated", w.substr(0, w.size() - 3));
  put("workload_binary", "bad-kind", flip(w, 5, '\x09'));

  put("task_binary", "seed-function", measure::task_to_binary(task_of(fn)));
  put("task_binary", "seed-tensors", measure::task_to_binary(task_of(tw)));
  std::string t = measure::task_to_binary(task_of(fn));
  put("task_binary", "bad-truncated", t.substr(0, t.size() - 1));
  put("task_binary", "bad-version", flip(t, 4, '\x02'));
}

void task_file_seeds(const fs::path& src) {
  std::string example = read_file(src / "proto-docs/examples/matmul_512.json");
  put("task_file", "seed-matmul_512.json", example);
  nlohmann::json j = nlohmann::json::parse(example);
  j["workload"] = registry::workload_to_json(tensor_workload(registry::builtin::matmul(4, 4, 4, ir::DType::Float32)));
  j["states"] = nlohmann::json::array({nlohmann::json::array()});
  put("task_file", "seed-tensor-workload.json", j.dump());
  put("task_file", "bad-unknown-field.json", R"({"workload": {"function": "matmul", "args": [1, 1, 1, "float32"]}, "targte": "llvm"})");
  put("task_file", "bad-truncated.json", example.substr(0, example.size() / 3));
}

void steps_and_record_seeds(const fs::path& src) {
  const fs::path ref = src / "tests/data/tvm-reference";
  std::vector<std::string> dense = lines_of(ref / "dense_bias_relu.records.json");
  for (size_t i : {1, 2, 4}) {
    record::Record r = record::from_json_line(dense.at(i));
    put("steps_lower", "seed-dense_bias_relu-" + std::to_string(i), r.steps);
  }
  put("steps_lower", "seed-empty", "[]");
  put("steps_lower", "seed-cache-write",
      R"([["CHW", 2, "local"], ["SP", 2, 0, 16, [2, 2], 1], ["FSP", 3, 0, 1, 1], ["CA", 2, 3, 0]])");
  put("steps_lower", "seed-rfactor", R"([["SP", 2, 2, 64, [8], 1], ["RF", 2, 3, 0]])");
  put("steps_lower", "seed-inline-fuse", R"([["CI", 4], ["FU", 5, [0, 1]], ["AN", 5, 0, 3], ["SA", 2, 0, 4, 0]])");
  put("steps_lower", "bad-stage", R"([["SP", 99, 0, 16, [4], 1]])");
  put("steps_lower", "bad-kind", R"([["XX", 2]])");

  for (const char* w : {"dense_bias_relu", "softmax", "conv2d_nchw"}) {
    std::vector<std::string> lines = lines_of(ref / (std::string(w) + ".records.json"));
    put("record_line", std::string("seed-") + w, lines.at(1));
  }
  measure::MeasureResult failed;
  failed.error_no = measure::MeasureErrorNo::InstantiationError;
  failed.error_msg = "step 0 (SP): bad";
  failed.costs = {record::kErrorCost};
  put("record_line", "seed-ours-failed",
      record::to_json_line(record::make_record(task_of(matmul_fn()), "[]", failed)));
  std::string line = lines_of(ref / "matmul.records.json").at(1);
  put("record_line", "bad-truncated", line.substr(0, line.size() / 2));
  put("record_line", "bad-not-object", "[1, 2, 3]");
}

std::string typed(proto::MessageType t, const std::string& body) {
  uint16_t v = static_cast<uint16_t>(t);
  return std::string{char(v & 0xff), char(v >> 8)} + body;
}

void proto_seeds() {
  using namespace proto;
  std::string task = measure::task_to_binary(task_of(matmul_fn()));
  measure::MeasureOptions opts;
  measure::MeasureResult ok;
  ok.costs = {1e-4, 1.1e-4};
  ok.all_cost = 0.5;
  ok.timestamp = 1.7e9;

  Hello hello{1, 1, "measurer 0.1"};
  Welcome welcome;
  welcome.server_version = "0.1.0";
  welcome.cpu_model = "cpu";
  welcome.cores = 2;
  welcome.workers = 2;
  welcome.max_body = kDefaultMaxBody;
  welcome.max_states = 4096;
  MeasureRequest req{7, task, {"[]", R"([["SP", 2, 0, 8, [2], 1]])"}, opts};
  MeasureResultMsg res{7, 1, ok};
  RequestDone done{7, 2, 0};
  StatusReply status;
  status.workers = 2;
  status.worker_list = {{100, WorkerState::Idle, 3}, {101, WorkerState::Running, 4}};
  Cancel cancel{7};
  ErrorMsg error{4, 7, "message body is truncated"};
  WorkerReady ready{100, 1};
  TaskRef with_bytes{task_digest(task), true, task};
  TaskRef by_digest{task_digest(task), false, ""};
  BuildJob build{1, with_bytes, "[]", opts};
  RunJob run{2, by_digest, "[]", "/tmp/cache/x.so", opts};
  TaskMissing missing{2, task_digest(task)};
  JobResult job{2, ok, "/tmp/cache/x.so", true};

  put("proto_message", "seed-hello", typed(MessageType::Hello, encode_body(hello)));
  put("proto_message", "seed-welcome", typed(MessageType::Welcome, encode_body(welcome)));
  put("proto_message", "seed-measure-request", typed(MessageType::MeasureRequest, encode_body(req)));
  put("proto_message", "seed-measure-result", typed(MessageType::MeasureResult, encode_body(res)));
  put("proto_message", "seed-request-done", typed(MessageType::RequestDone, encode_body(done)));
  put("proto_message", "seed-status-request", typed(MessageType::StatusRequest, ""));
  put("proto_message", "seed-status-reply", typed(MessageType::StatusReply, encode_body(status)));
  put("proto_message", "seed-cancel", typed(MessageType::Cancel, encode_body(cancel)));
  put("proto_message", "seed-error", typed(MessageType::Error, encode_body(error)));
  put("proto_message", "seed-worker-ready", typed(MessageType::WorkerReady, encode_body(ready)));
  put("proto_message", "seed-build-job", typed(MessageType::BuildJob, encode_body(build)));
  put("proto_message", "seed-run-job", typed(MessageType::RunJob, encode_body(run)));
  put("proto_message", "seed-job-result", typed(MessageType::JobResult, encode_body(job)));
  put("proto_message", "seed-task-missing", typed(MessageType::TaskMissing, encode_body(missing)));
  std::string body = encode_body(req);
  put("proto_message", "bad-truncated-request", typed(MessageType::MeasureRequest, body.substr(0, 20)));
  put("proto_message", "bad-bool", typed(MessageType::JobResult, flip(encode_body(job), -1, '\x02')));

  put("proto_frames", "seed-client", encode(hello) + encode(req) + encode(StatusRequest{}) + encode(cancel));
  put("proto_frames", "seed-server", encode(welcome) + encode(res) + encode(done) + encode(status));
  put("proto_frames", "seed-worker", encode(ready) + encode(build) + encode(job) + encode(run));
  put("proto_frames", "seed-error", encode_error(ErrorCode::BadMagic, "bad magic"));
  std::string frame = encode(hello);
  put("proto_frames", "bad-magic", flip(frame, 0, 'X'));
  put("proto_frames", "bad-version", flip(frame, 4, '\x09'));
  put("proto_frames", "bad-too-large", flip(frame, 11, '\x7f'));
  put("proto_frames", "bad-truncated", frame + frame.substr(0, frame.size() - 2));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s SOURCE_DIR CORPUS_DIR\n", argv[0]);
    return 2;
  }
  try {
    fs::path src = argv[1];
    g_root = argv[2];
    dag_seeds();
    workload_and_task_seeds();
    task_file_seeds(src);
    steps_and_record_seeds(src);
    proto_seeds();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
