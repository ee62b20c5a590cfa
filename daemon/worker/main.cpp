// measurerd-worker: measures candidates. With --once it runs a task file by itself and prints
// one JSON result line per state; under measurerd it serves build and run jobs.
#include <CLI/CLI.hpp>
#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <sstream>

#include "common/measure/build_cache.h"
#include "common/measure/heap_policy.h"
#include "common/util/version_text.h"
#include "daemon/worker/once.h"
#include "daemon/worker/serve.h"

int main(int argc, char** argv) {
  // Logs go to stderr: --once prints its results on stdout, and --serve keeps stdout for what a
  // compiler or a kernel prints. SPDLOG_LEVEL=debug shows lowering passes and LLVM stage times.
  spdlog::set_default_logger(spdlog::stderr_color_mt("worker"));
  spdlog::cfg::load_env_levels();
  mrd::measure::place_large_allocations_on_heap();
  mrd::measure::retain_freed_heap();
  if (argc > 1 && std::string(argv[1]) == "--serve") return mrd::worker::serve_main(argc, argv);
  CLI::App app{
      "measurerd-worker: builds and times tensor-program candidates.\n"
      "  measurerd-worker --once TASK.json   measure every state of a task file, one JSON line each\n"
      "  measurerd-worker --serve [...]      serve jobs from measurerd (see --serve --help);\n"
      "                                      its --test-faults switch (testing only) makes it\n"
      "                                      accept fault.* workloads, refused by default\n"
      "Exit codes: 0 every state got a result line (measure errors are results too), 1 internal\n"
      "failure, 2 bad usage or invalid task file, 3 a state failed and --fail-on-error was given."};
  app.set_version_flag("--version", mrd::version_text("measurerd-worker"),
                       "Print the version, git commit, compiler and LLVM version, and exit");
  app.option_defaults()->always_capture_default();
  mrd::worker::OnceOptions o;
  std::string cflags;
  app.add_option("--once", o.task_path, "Task file (JSON) to measure in this process");
  app.add_flag("--dump-ir", o.dump_ir, "Print each state's lowered PrimFunc to stderr");
  app.add_flag("--dump-c,--dump-source", o.dump_c,
               "Print each state's generated source (LLVM IR for llvm targets, C for c) to stderr");
  app.add_option("--target", o.target,
                 "Target replacing the task file's: \"llvm [-mcpu=CPU] [-mattr=...]\" (the LLVM backend) or "
                 "\"c\" (C through --cc)");
  app.add_option("--cache-dir", o.build.cache_dir,
                 "Compile cache directory (default $XDG_CACHE_HOME/measurerd or ~/.cache/measurerd)");
  app.add_option("--cc", o.build.compiler, "C compiler (name in PATH or path)")->capture_default_str();
  app.add_option("--cflags", cflags,
                 "Compiler flags replacing the default \"-O3 -march=native -fPIC -shared -fopenmp\"");
  app.add_flag("--profile-stages", o.profile_stages,
               "Add per-stage seconds to each result line, and calls_saved: the timed calls "
               "that calibrating number from the warm-up saved (TVM would have thrown them away)");
  app.add_flag("--fail-on-error", o.fail_on_error, "Exit with 3 when any state has a measure error");
  app.add_flag("--test-corrupt-output", o.corrupt_output_for_test,
               "Testing only: perturb each output before the correctness check (forces WRONG_ANSWER)");
  app.add_option("--resume-from", o.resume_from, "Start at this state (used after a stuck run)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  if (o.task_path.empty()) {
    std::cerr << "measurerd-worker: nothing to do: give --once TASK.json (see --help)\n";
    return 2;
  }
  if (!cflags.empty()) {
    std::istringstream in(cflags);
    o.build.flags.clear();
    for (std::string f; in >> f;) o.build.flags.push_back(f);
  }
  if (o.build.cache_dir.empty()) o.build.cache_dir = mrd::measure::default_cache_dir();
  // The command line to re-exec after a stuck run, without any earlier --resume-from.
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--resume-from") {
      ++i;
      continue;
    }
    if (a.rfind("--resume-from=", 0) == 0) continue;
    o.argv.push_back(a);
  }
  try {
    return mrd::worker::run_once(o);
  } catch (const std::exception& e) {
    std::cerr << "measurerd-worker: internal error: " << e.what() << "\n";
    return 1;
  }
}
