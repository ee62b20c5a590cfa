#include "client/cli/kernel_export.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/codegen/c_codegen.h"
#include "common/codegen/target.h"
#include "common/ir/stmt.h"
#include "common/measure/build_cache.h"
#include "common/measure/pipeline.h"
#include "common/measure/shared_object_linker.h"
#include "common/registry/registry.h"
#include "common/util/error.h"

namespace mrd::cli {
namespace fs = std::filesystem;
namespace {

constexpr double kLinkTimeoutSeconds = 60;

std::string identifier(const std::string& text) {
  std::string out;
  for (char c : text) {
    bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (word)
      out += c;
    else if (!out.empty() && out.back() != '_')
      out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out = "k_" + out;
  return out;
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  MRD_USER_CHECK(out, "cannot write ", path.string());
  out << text;
  out.close();
  MRD_USER_CHECK(out.good(), "cannot write ", path.string());
}

/// True for an ELF relocatable object (the JIT's artifact), false for a shared object.
bool is_relocatable_object(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char header[18] = {};
  in.read(header, sizeof header);
  return in.gcount() == sizeof header && header[16] == 1 && header[17] == 0;  // e_type ET_REL
}

/// `float (*C)[64]`-style parameter: a pointer to the rows, so that C[i][j] indexes it.
std::string parameter(const ir::BufferNode& b, const std::string& name) {
  std::string s = std::string(codegen::c_type(b.dtype)) + " ";
  if (b.shape.size() <= 1) return s + "*" + name;
  s += "(*" + name + ")";
  for (size_t i = 1; i < b.shape.size(); ++i) s += "[" + std::to_string(b.shape[i]) + "]";
  return s;
}

std::string shape_text(const ir::BufferNode& b) {
  std::string s = std::string(ir::dtype_name(b.dtype));
  for (int64_t d : b.shape) s += "[" + std::to_string(d) + "]";
  return b.shape.empty() ? s + " (a scalar)" : s;
}

std::string header_text(const std::string& name, const std::string& comment, const ir::PrimFunc& f,
                        const std::vector<bool>& is_input) {
  std::ostringstream h;
  h << "// " << comment << "\n"
    << "// Arguments, in order: row-major, each 64-byte aligned (e.g. aligned_alloc(64, ...)).\n";
  std::vector<std::string> names;
  for (size_t i = 0; i < f.params.size(); ++i) {
    const auto& b = *f.params[i];
    std::string n = identifier(b.name);
    for (const auto& other : names)
      if (other == n) n += "_" + std::to_string(i);
    names.push_back(n);
    h << "//   args[" << i << "]  " << n << "  " << shape_text(b);
    if (i < is_input.size()) h << (is_input[i] ? "  input" : "  output");
    h << "\n";
  }
  std::string guard = "MEASURERD_KERNEL_" + name + "_H";
  h << "#ifndef " << guard << "\n#define " << guard << "\n\n#include <stdint.h>\n\n"
    << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
    << "/// The kernel of kernel.so: args[i] points to the data of argument i. Returns 0, or\n"
    << "/// non-zero when a heap allocation inside the kernel failed.\n"
    << "int32_t mrd_entry(void* const* args);\n\n"
    << "#define " << name << "_NUM_ARGS " << f.params.size() << "\n\n"
    << "/// mrd_entry with typed, shaped arguments.\n"
    << "static inline int32_t " << name << "(";
  for (size_t i = 0; i < f.params.size(); ++i)
    h << (i ? ", " : "") << parameter(*f.params[i], names[i]);
  h << ") {\n  void* const args[] = {";
  for (size_t i = 0; i < f.params.size(); ++i) h << (i ? ", " : "") << "(void*)" << names[i];
  h << "};\n  return mrd_entry(args);\n}\n\n"
    << "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
  return h.str();
}

}  // namespace

std::string kernel_name(const std::string& workload_key) {
  try {
    auto key = nlohmann::json::parse(workload_key);
    if (key.is_array()) {
      std::string text;
      for (const auto& part : key)
        text += (part.is_string() ? part.get<std::string>() : part.dump()) + "_";
      return identifier(text);
    }
  } catch (const nlohmann::json::exception&) {
  }
  return identifier(workload_key);
}

ExportedKernel export_kernel(const record::Record& r, const std::string& dir,
                             const std::string& comment) {
  measure::Task task = record::task_of(r);
  measure::BuildConfig config;
  config.cache_dir = measure::default_cache_dir();
  measure::MeasureOptions options;
  options.build_timeout = 600;  // exporting is not timing: a slow build is no reason to fail
  measure::BuildOutput built = measure::build_candidate(task, r.steps, options, config);
  MRD_USER_CHECK(built.result.error_no == measure::MeasureErrorNo::NoError, "cannot build ",
                 r.workload_key, ": ", measure::error_name(built.result.error_no), ": ",
                 built.result.error_msg);

  ExportedKernel out;
  out.name = kernel_name(r.workload_key);
  fs::path d = fs::path(dir) / out.name;
  out.dir = d.string();
  std::error_code ec;
  fs::create_directories(d, ec);
  MRD_USER_CHECK(!ec, "cannot create ", d.string(), ": ", ec.message());

  bool llvm = codegen::parse_target(task.target).kind == codegen::TargetKind::LLVM;
  write_file(d / (llvm ? "kernel.ll" : "kernel.c"), built.source);
  fs::path so = d / "kernel.so";
  if (is_relocatable_object(built.artifact)) {
    auto linked = measure::SharedObjectLinker(config.compiler)
                      .link(built.artifact, so.string(), true, kLinkTimeoutSeconds);
    MRD_USER_CHECK(linked.status == measure::CompileOutcome::Status::Ok, "cannot link ",
                   so.string(), ": ", linked.message);
  } else {
    fs::copy_file(built.artifact, so, fs::copy_options::overwrite_existing, ec);
    MRD_USER_CHECK(!ec, "cannot write ", so.string(), ": ", ec.message());
  }

  std::vector<bool> is_input;
  auto tensors = registry::Registry::global().instantiate(task.workload);
  if (tensors.size() == built.func.params.size())
    for (const auto& t : tensors) is_input.push_back(t->is_placeholder());
  write_file(d / "kernel.h", header_text(out.name, comment, built.func, is_input));
  write_file(d / "steps.json", nlohmann::json::parse(r.steps).dump(1) + "\n");
  write_file(d / "record.log", record::to_json_line(r) + "\n");
  return out;
}

}  // namespace mrd::cli
