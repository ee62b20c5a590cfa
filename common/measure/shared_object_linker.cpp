#include "common/measure/shared_object_linker.h"

#include <filesystem>

#include "common/measure/system_compiler.h"
#include "common/util/error.h"

namespace mrd::measure {

namespace {

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  size_t b = s.find_first_not_of(" \n\r");
  return b == std::string::npos ? "" : s.substr(b);
}

bool is_file(const std::string& p) {
  std::error_code ec;
  return !p.empty() && p[0] == '/' && std::filesystem::exists(p, ec);
}

}  // namespace

SharedObjectLinker::SharedObjectLinker(const std::string& compiler) {
  std::string cc = resolve_program(compiler);
  std::string ld = resolve_program("ld");
  if (cc.empty() || ld.empty()) return;
  ProcessOutcome gomp = run_process(cc, {"-print-file-name=libgomp.so"}, 10.0);
  ProcessOutcome gcc = run_process(cc, {"-print-libgcc-file-name"}, 10.0);
  std::string gomp_path = trim(gomp.output), gcc_path = trim(gcc.output);
  if (gomp.exit_code == 0 && gcc.exit_code == 0 && is_file(gomp_path) && is_file(gcc_path)) {
    ld_path_ = ld;
    libgomp_path_ = gomp_path;
    libgcc_path_ = gcc_path;
  }
}

std::string SharedObjectLinker::identity() const { return str_cat("ld:", ld_path_, " ", libgomp_path_); }

CompileOutcome SharedObjectLinker::link(const std::string& object_path, const std::string& output_path,
                                        bool openmp, double timeout_seconds) const {
  CompileOutcome result;
  if (!available()) {
    result.status = CompileOutcome::Status::Failed;
    result.message = "the linker (ld) or libgomp/libgcc could not be found";
    return result;
  }
  std::vector<std::string> args = {"-shared", "-o", output_path, object_path};
  if (openmp) args.push_back(libgomp_path_);
  args.insert(args.end(), {"-lm", "-lc", libgcc_path_});
  ProcessOutcome p = run_process(ld_path_, args, timeout_seconds);
  if (p.timed_out) {
    result.status = CompileOutcome::Status::TimedOut;
    result.message = str_cat("the linker passed the build timeout of ", timeout_seconds, " s");
  } else if (!p.launched || p.exit_code != 0) {
    result.status = CompileOutcome::Status::Failed;
    result.message = trim(p.output);
    if (result.message.empty()) result.message = str_cat("the linker exited with code ", p.exit_code);
  }
  return result;
}

}  // namespace mrd::measure
