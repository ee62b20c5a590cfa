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

  for (auto* c : {sub, status, workloads, rep}) c->footer(exit_codes);
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
