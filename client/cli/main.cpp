// measurer: the command-line client of measurerd.
#include <CLI/CLI.hpp>
#include <iostream>

#include "client/cli/commands.h"
#include "client/lib/client.h"
#include "common/proto/protocol_error.h"

using namespace mrd::cli;

int main(int argc, char** argv) {
  const std::string exit_codes =
      "Exit codes: 0 done, no measure errors; 1 done, some results are measure errors; "
      "2 bad usage or invalid input file; 3 measurerd unreachable, refused the request or went "
      "away; 4 internal error.";
  CLI::App app{"measurer: submit tensor-program candidates to measurerd and read the results."};
  app.footer(exit_codes);
  app.require_subcommand(1);
  Common common;
  app.add_option("--socket", common.socket,
                 "measurerd socket (default: $MEASURERD_SOCKET, /run/measurerd/measurerd.sock, "
                 "$XDG_RUNTIME_DIR/measurerd.sock)");
  app.add_flag("--json", common.json, "machine-readable output: one JSON object per line");

  SubmitArgs submit;
  auto* sub = app.add_subcommand(
      "submit", "Measure every state of a task file; one result per state, in order.");
  sub->add_option("TASK", submit.task_file, "task file (JSON: workload, target, options, states)")
      ->required();
  sub->add_option("--log", submit.log_file, "append each result as a TVM auto_scheduler record");
  sub->add_flag("--quiet,-q", submit.quiet, "no progress bar on stderr");
  sub->add_option("--socket", common.socket, "measurerd socket");
  sub->add_flag("--json", common.json, "one JSON object per result on stdout");

  auto* status = app.add_subcommand("status", "Show workers, queue, throughput and cache hits.");
  status->add_option("--socket", common.socket, "measurerd socket");
  status->add_flag("--json", common.json, "one JSON object");

  auto* workloads = app.add_subcommand(
      "workloads", "List the built-in function workloads and their arguments (no daemon needed).");
  workloads->add_flag("--json", common.json, "a JSON list");

  ReplayArgs replay;
  auto* rep = app.add_subcommand(
      "replay", "Measure each record of a TVM record log again; print old and new cost.");
  rep->add_option("LOG", replay.log_file, "record log (JSON lines, TVM auto_scheduler v0.6)")
      ->required();
  rep->add_flag("--quiet,-q", replay.quiet, "no progress bar on stderr");
  rep->add_option("--socket", common.socket, "measurerd socket");
  rep->add_flag("--json", common.json, "one JSON object per record on stdout");

  TuneArgs tune;
  auto* tn = app.add_subcommand(
      "tune",
      "Search a workload's schedules (Ansor sketches, random sampling, evolutionary search), "
      "measuring each batch through measurerd; print the best schedule found.");
  tn->add_option("--workload,-w", tune.workload,
                 "built-in workload as NAME:ARG,... e.g. matmul:512,512,512,float32 "
                 "(see `measurer workloads`)");
  tn->add_option("--task", tune.task_file,
                 "task file naming the workload (may be an inline DAG); its options are used, "
                 "its states are not");
  tn->add_option("--trials,-n", tune.trials, "measurements to make")->capture_default_str();
  tn->add_option("--batch", tune.batch, "candidates per request to measurerd")->capture_default_str();
  tn->add_option("--seed", tune.seed, "random seed: the search is a function of it and the results")
      ->capture_default_str();
  tn->add_option("--num-cores", tune.num_cores,
                 "hardware num_cores of the task (threads of a parallel loop; default: the "
                 "task file's, else measurerd's cores)");
  tn->add_option("--log", tune.log_file, "append every result as a TVM auto_scheduler record");
  tn->add_flag("--resume", tune.resume,
               "continue from the --log file: its records of this workload seed the search and "
               "are not measured again");
  tn->add_option("--number", tune.number, "timing: calls per repeat (default 3, TVM's)");
  tn->add_option("--repeat", tune.repeat, "timing: repeats (default 1, TVM's)");
  tn->add_option("--min-repeat-ms", tune.min_repeat_ms,
                 "timing: least milliseconds per repeat (default 100, TVM's)");
  tn->add_flag("--show-c", tune.show_c, "also print the lowered C of the best schedule");
  tn->add_option("--c-out", tune.c_out, "write the lowered C of the best schedule to this file");
  tn->add_option("--dry-run", tune.dry_run,
                 "measure nothing: write the first batch of candidates as a task file here "
                 "(no daemon needed; with --trials as the batch size)");
  tn->add_flag("--quiet,-q", tune.quiet, "no progress on stderr");
  tn->add_option("--socket", common.socket, "measurerd socket");
  tn->add_flag("--json", common.json,
               "one JSON object at the end: workload_key, trials, errors, best_cost, "
               "best_gflops, steps, record (and c with --show-c)");

  BestArgs best;
  auto* bst = app.add_subcommand(
      "best", "The best record of each workload in a record log (lowest mean cost, no error).");
  bst->add_option("LOG", best.log_file, "record log (JSON lines, TVM auto_scheduler v0.6)")
      ->required();
  bst->add_flag("--json", common.json, "print each best record as its log line");

  PlotArgs plot;
  auto* plt = app.add_subcommand(
      "plot",
      "Draw the tuning curve of a record log as SVG: best GFLOP/s so far against trial "
      "number, one line per workload (mean cost when a workload's FLOPs are unknown).");
  plt->add_option("LOG", plot.log_file, "record log (JSON lines, TVM auto_scheduler v0.6)")
      ->required();
  plt->add_option("-o,--output", plot.out, "SVG file to write")->capture_default_str();
  plt->add_option("--title", plot.title, "plot title (default: the log's file name)");

  for (auto* c : {sub, status, workloads, rep, bst, plt}) c->footer(exit_codes);
  tn->footer("Exit codes: 0 a best schedule was found; 1 no candidate was measured without "
             "error; 2 bad usage or invalid input; 3 measurerd unreachable, refused a request or "
             "went away (the results received are in the log); 4 internal error.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kOk : kUsage;
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
