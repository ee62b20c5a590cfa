// measurer: the command-line client of measurerd.
#include <CLI/CLI.hpp>
#include <iostream>

#include "client/cli/broker_options.h"
#include "client/cli/commands.h"
#include "client/cli/usage_hints.h"
#include "client/lib/client.h"
#include "common/proto/protocol_error.h"
#include "common/util/version_text.h"

using namespace mrd::cli;

int main(int argc, char** argv) {
  const std::string exit_codes =
      "Exit codes: 0 done, no measure errors; 1 done, some results are measure errors; "
      "2 bad usage or invalid input file; 3 measurerd unreachable, refused the request or went "
      "away; 4 internal error; 130 (submit, tune) interrupted by Ctrl-C. Each subcommand's "
      "--help says what its codes mean for it.";
  CLI::App app{"measurer: submit tensor-program candidates to measurerd and read the results. "
               "--socket and --json may come before or after the subcommand; `measurer "
               "SUBCOMMAND --help` explains each one.",
               "measurer"};
  app.footer("Examples:\n"
             "  measurer workloads\n"
             "  measurer tune -w matmul:512,512,512,float32 -n 200 --log mm.log\n"
             "  measurer best mm.log --export kernels\n"
             "  measurer status --socket /tmp/measurerd.sock\n\n" +
             exit_codes);
  app.require_subcommand(1);
  app.fallthrough();  // --socket and --json after any subcommand
  app.option_defaults()->always_capture_default();
  app.set_version_flag("--version", mrd::version_text("measurer"),
                       "print the version, git commit, compiler and LLVM version, and exit");
  Common common;
  const std::string socket_help =
      "measurerd socket (default: $MEASURERD_SOCKET, else /run/measurerd/measurerd.sock when "
      "it exists, else $XDG_RUNTIME_DIR/measurerd.sock)";
  app.add_option("--socket", common.socket, socket_help);
  app.add_flag("--json", common.json, "machine-readable output: one JSON object per line");

  SubmitArgs submit;
  auto* sub = app.add_subcommand(
      "submit",
      "Measure every state of a task file; one result per state, in order, printed as it "
      "arrives: result, mean cost, GFLOP/s (the workload's flop count over the mean cost), "
      "build and run seconds, cache hit, message. Ctrl-C cancels the request: the states not "
      "yet started come back UNKNOWN_ERROR \"cancelled\", the results received are printed "
      "and measurer exits 130; a second Ctrl-C quits at once.");
  sub->add_option("TASK", submit.task_file, "task file (JSON: workload, target, options, states)")
      ->required();
  const std::string target_help =
      "TVM target string: \"llvm [-mcpu=CPU] [-mattr=+f,-g] [-mtriple=T] [-opt-level=N] "
      "[-fast-math]\" builds with the LLVM backend as TVM builds llvm targets (no -mcpu: the "
      "host CPU), \"c\" with the C backend "
      "through the system compiler; records carry it";
  sub->add_option("--target", submit.target, "replaces the task file's target. " + target_help);
  sub->add_option("--log", submit.log_file,
                  "append each measured result as a TVM auto_scheduler record (cancelled states "
                  "are not logged)");
  sub->add_flag("--quiet,-q", submit.quiet, "no progress bar on stderr (drawn only on a terminal)");
  const std::string factor_help =
      "skip-hopeless factor (default 10, or the task file's; in [1, 1000000])";
  sub->add_flag("--skip-hopeless", submit.skip_hopeless,
                "stop timing a state whose warm-up call alone is slower than the factor times "
                "the best mean cost measured for the task so far: its cost is the warm-up's, "
                "flagged timing_skipped (off unless asked here or in the task file's options)");
  sub->add_option("--skip-hopeless-factor", submit.skip_hopeless_factor, factor_help)
      ->check(CLI::Range(1.0, 1000000.0));
  sub->add_option("--socket", common.socket, socket_help);
  sub->add_flag("--json", common.json,
                "one JSON object per result on stdout: index and the result object (error_no, "
                "error, error_msg, costs, mean_cost, gflops (null for an error or an unknown "
                "flop count), all_cost, build_seconds, run_seconds, cache_hit, timing_skipped, "
                "timing_policy, timestamp; proto-docs/task-format.md)");

  auto* status = app.add_subcommand("status",
      "Show workers, queue, throughput and cache hits (with --broker: the broker's device keys, "
      "their queues and nodes).");
  status->add_option("--socket", common.socket, socket_help);
  status->add_flag("--json", common.json, "one JSON object");

  auto* workloads = app.add_subcommand(
      "workloads", "List the built-in function workloads and their arguments (no daemon needed).");
  workloads->add_flag("--json", common.json, "a JSON list");

  ReplayArgs replay;
  auto* rep = app.add_subcommand(
      "replay", "Measure each record of a TVM record log again; print old and new cost.");
  rep->add_option("LOG", replay.log_file, "record log (JSON lines, TVM auto_scheduler v0.6)")
      ->required();
  rep->add_flag("--quiet,-q", replay.quiet, "no progress bar on stderr (drawn only on a terminal)");
  rep->add_option("--socket", common.socket, socket_help);
  rep->add_flag("--json", common.json,
                "one JSON object per record on stdout: the submit --json fields, plus "
                "workload_key, old_cost, new_cost (seconds; 0 for an error)");

  TuneArgs tune;
  auto* tn = app.add_subcommand(
      "tune",
      "Search a workload's schedules (Ansor sketches, random sampling, evolutionary search), "
      "measuring each batch through measurerd; print the best schedule found. If measurerd "
      "goes away or Ctrl-C is pressed, tune stops at once with the --log records kept; run the "
      "same command with --resume to continue.");
  tn->add_option("--workload,-w", tune.workload,
                 "built-in workload as NAME:ARG,... e.g. matmul:512,512,512,float32 "
                 "(see `measurer workloads`)");
  tn->add_option("--task", tune.task_file,
                 "task file naming the workload (may be an inline DAG); its options are used, "
                 "its states are not");
  tn->add_option("--trials,-n", tune.trials,
                 "measurements to make in this run (with --resume: beyond those in the log)")
      ->capture_default_str();
  tn->add_option("--batch", tune.batch, "candidates per request to measurerd")->capture_default_str();
  tn->add_option("--seed", tune.seed, "random seed: the search is a function of it and the results")
      ->capture_default_str();
  tn->add_option("--confirm", tune.confirm,
                 "after the trials, measure the best N states again in 3 passes over them (one "
                 "record each, logged too), and the states that then beat them, in up to 3 "
                 "rounds: the best printed is what this confirms; 0: no confirmation")
      ->capture_default_str();
  tn->add_option("--num-cores", tune.num_cores,
                 "hardware num_cores of the task (threads of a parallel loop; default: the "
                 "task file's, else measurerd's cores)");
  tn->add_option("--log", tune.log_file,
                 "append every result as a TVM auto_scheduler record as it arrives (what is "
                 "logged survives Ctrl-C or a lost daemon; --resume continues from it)");
  tn->add_flag("--resume", tune.resume,
               "continue from the --log file: its records of this workload seed the search and "
               "are not measured again");
  tn->add_option("--target", tune.target,
                 "default: the task file's, else \"llvm -keys=cpu\". " + target_help);
  tn->add_option("--number", tune.number, "timing: calls per repeat (default 3, TVM's)");
  tn->add_option("--repeat", tune.repeat, "timing: repeats (default 1, TVM's)");
  tn->add_option("--min-repeat-ms", tune.min_repeat_ms,
                 "timing: least milliseconds per repeat (default 100, TVM's)");
  tn->add_flag("--no-skip-hopeless", tune.no_skip_hopeless,
               "time every candidate in full (by default a candidate whose warm-up call alone "
               "is slower than the factor times the best so far is not timed further)");
  tn->add_option("--skip-hopeless-factor", tune.skip_hopeless_factor, factor_help)
      ->check(CLI::Range(1.0, 1000000.0));
  tn->add_flag("--show-c", tune.show_c, "also print the lowered C of the best schedule");
  tn->add_option("--c-out", tune.c_out, "write the lowered C of the best schedule to this file");
  tn->add_option("--dry-run", tune.dry_run,
                 "measure nothing: write the first batch of candidates as a task file here "
                 "(no daemon needed; with --trials as the batch size)");
  tn->add_flag("--quiet,-q", tune.quiet, "no progress on stderr");
  tn->add_option("--socket", common.socket, socket_help);
  tn->add_flag("--json", common.json,
               "one JSON object at the end: workload_key, trials, resumed, errors, best_cost, "
               "best_gflops, result (the best result object, as submit --json prints), steps, "
               "record (and c with --show-c; stopped, with the reason, when the run ended "
               "early)");

  BestArgs best;
  auto* bst = app.add_subcommand(
      "best", "The best record of each workload in a record log (lowest mean cost, no error).");
  bst->add_option("LOG", best.log_file, "record log (JSON lines, TVM auto_scheduler v0.6)")
      ->required();
  bst->add_flag("--json", common.json,
                "one JSON object per workload: workload_key, target, num_cores, records, "
                "best_index, mean_cost, gflops, result (the result object, as submit --json "
                "prints), steps, record (its log line)");
  bst->add_option("--export", best.export_dir,
                  "write the best kernel of each workload into this directory: its C or LLVM "
                  "source, a shared object, a C header declaring the entry with its argument "
                  "shapes, and the steps (one subdirectory per workload)");

  PlotArgs plot;
  auto* plt = app.add_subcommand(
      "plot",
      "Draw the tuning curve of a record log as SVG: best GFLOP/s so far against trial "
      "number, one line per workload (mean cost when a workload's FLOPs are unknown).");
  plt->add_option("LOG", plot.log_file, "record log (JSON lines, TVM auto_scheduler v0.6)")
      ->required();
  plt->add_option("-o,--output", plot.out, "SVG file to write")->capture_default_str();
  plt->add_option("--title", plot.title, "plot title (default: the log's file name)");

  for (CLI::App* a : {&app, sub, status, tn}) add_broker_options(*a, common);

  rep->footer("Examples:\n"
              "  measurer replay mm.log\n"
              "  measurer replay mm.log --json > again.jsonl\n"
              "\n"
              "Exit codes: 0 every record measured again without error; 1 some results are "
              "measure errors; 2 bad usage or unreadable log; 3 measurerd unreachable, refused "
              "the request or went away; 4 internal error.");
  status->footer("Examples:\n"
                 "  measurer status\n"
                 "  measurer status --json --socket /tmp/measurerd.sock\n"
                 "\n"
                 "Exit codes: 0 shown; 2 bad usage; 3 measurerd unreachable or went away; "
                 "4 internal error.");
  workloads->footer("Examples:\n"
                    "  measurer workloads\n"
                    "  measurer workloads --json\n"
                    "\n"
                    "Exit codes: 0 listed; 2 bad usage; 4 internal error.");
  bst->footer("Examples:\n"
              "  measurer best mm.log\n"
              "  measurer best mm.log --json\n"
              "  measurer best mm.log --export kernels\n"
              "\n"
              "Exit codes: 0 a best record for every workload of the log; 1 a workload has no "
              "record without error, or the log is empty; 2 bad usage, unreadable log, or a "
              "kernel could not be exported (--export); 4 internal error.");
  plt->footer("Examples:\n"
              "  measurer plot mm.log -o curve.svg --title \"matmul 512\"\n"
              "\n"
              "Exit codes: 0 written; 2 bad usage, unreadable log, no record to draw or the "
              "SVG cannot be written; 4 internal error.");
  sub->footer("Examples:\n"
              "  measurer submit task.json\n"
              "  measurer submit task.json --json --log run.log\n"
              "  measurer submit task.json --target c --socket /tmp/measurerd.sock\n"
              "\n"
              "Exit codes: 0 done, no measure errors; 1 done, some results are measure errors; "
              "2 bad usage, invalid task file or a --log write failed; 3 measurerd unreachable, "
              "refused the request or went away; 4 internal error; 130 interrupted by Ctrl-C "
              "(the request was cancelled; the results received were printed and the measured "
              "ones logged).");
  tn->footer("Examples:\n"
             "  measurer tune -w matmul:512,512,512,float32 -n 200 --log mm.log\n"
             "  measurer tune -w matmul:512,512,512,float32 -n 100 --log mm.log --resume\n"
             "  measurer tune --task task.json --json --c-out best.c\n"
             "  measurer tune -w matmul:64,64,64,float32 --dry-run batch.json -n 8\n"
             "\n"
             "Exit codes: 0 a best schedule was found; 1 no candidate was measured without "
             "error; 2 bad usage, invalid input or a --log write failed; 3 measurerd "
             "unreachable, refused a request or went away mid-run: tune stops at once, the "
             "results received are in the --log file and the same command with --resume "
             "continues; 4 internal error; 130 interrupted by Ctrl-C (the batch in flight is "
             "cancelled, the measured results are in the --log file, --resume continues; a "
             "second Ctrl-C quits at once).");
  if (argc == 1) {  // nothing asked: say what can be
    std::cout << app.help();
    return kOk;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e), kOk;  // --help, --version
    if (auto why = explain_unknown(app, argc, argv)) {
      std::cerr << *why << "\n";
      return kUsage;
    }
    if (app.get_subcommands().empty()) {
      std::cerr << "measurer: give a subcommand: submit, status, workloads, replay, tune, best or "
                   "plot (see `measurer --help`)\n";
      return kUsage;
    }
    app.exit(e);
    return kUsage;
  }
  try {
    if (sub->parsed()) return run_submit(common, submit);
    if (status->parsed()) return run_status(common);
    if (workloads->parsed()) return run_workloads(common);
    if (rep->parsed()) return run_replay(common, replay);
    if (tn->parsed()) return run_tune(common, tune);
    if (bst->parsed()) return run_best(common, best);
    if (plt->parsed()) return run_plot(common, plot);
    return kUsage;
  } catch (const mrd::client::ConnectionError& e) {
    std::cerr << "measurer: " << e.what() << "\n";
    return kUnavailable;
  } catch (const mrd::client::ServerError& e) {
    std::cerr << "measurer: " << e.what() << "\n";
    return kUnavailable;
  } catch (const mrd::proto::ProtocolError& e) {
    std::cerr << "measurer: bad reply from measurerd: " << e.what() << "\n";
    return kUnavailable;
  } catch (const std::exception& e) {
    std::cerr << "measurer: internal error: " << e.what() << "\n";
    return kInternal;
  }
}
