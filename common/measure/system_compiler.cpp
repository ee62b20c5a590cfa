#include "common/measure/system_compiler.h"

#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/process.hpp>
#include <boost/process/posix.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "common/util/error.h"
#include "common/util/process_tree.h"

namespace mrd::measure {
namespace {

namespace bp = boost::process;
constexpr size_t kMaxCapturedOutput = 64 * 1024;

std::string first_line(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  return line;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  size_t b = s.find_first_not_of(" \n\r");
  return b == std::string::npos ? "" : s.substr(b);
}

}  // namespace

std::string resolve_program(const std::string& program) {
  if (program.find('/') != std::string::npos) {
    std::error_code ec;
    return std::filesystem::exists(program, ec) ? program : "";
  }
  return bp::search_path(program).string();
}

ProcessOutcome run_process(const std::string& program, const std::vector<std::string>& args,
                           double timeout_seconds) {
  ProcessOutcome out;
  try {
    boost::asio::io_context ctx;
    bp::async_pipe pipe(ctx);
    std::string captured;
    std::array<char, 4096> buf;
    bool exited = false;
    boost::asio::steady_timer timer(ctx);
    bp::child child(bp::exe = program, bp::args = args, bp::std_in < bp::null,
                    (bp::std_out & bp::std_err) > pipe, ctx,
                    bp::on_exit = [&](int code, const std::error_code&) {
                      exited = true;
                      out.exit_code = code;
                      timer.cancel();
                    });
    out.launched = true;
    std::function<void(const boost::system::error_code&, size_t)> on_read =
        [&](const boost::system::error_code& ec, size_t n) {
          if (captured.size() < kMaxCapturedOutput) captured.append(buf.data(), n);
          if (!ec) pipe.async_read_some(boost::asio::buffer(buf), on_read);
        };
    pipe.async_read_some(boost::asio::buffer(buf), on_read);
    timer.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(std::max(0.0, timeout_seconds))));
    timer.async_wait([&](const boost::system::error_code& ec) {
      if (ec || exited) return;
      out.timed_out = true;
      // The compiler and what it started (cc1, as, ld) share our process group, so that
      // whoever ends this process's group ends them too; past the timeout, they end here.
      util::kill_process_tree(child.id(), std::chrono::seconds(2));
      boost::system::error_code ignored2;
      pipe.close(ignored2);
    });
    ctx.run();
    std::error_code ignored;
    if (child.running(ignored)) child.wait(ignored);
    out.output = captured.substr(0, kMaxCapturedOutput);
  } catch (const std::exception& e) {
    out.output = str_cat("could not run ", program, ": ", e.what());
  }
  return out;
}

SystemCompiler::SystemCompiler(std::string compiler) : name_(std::move(compiler)), linker_(name_) {
  path_ = resolve_program(name_);
  if (path_.empty()) return;
  ProcessOutcome v = run_process(path_, {"--version"}, 10.0);
  version_ = first_line(v.output);
}

std::string SystemCompiler::identity() const {
  return str_cat(path_, "\n", version_, "\n", links_directly() ? linker_.identity() : "driver");
}

CompileOutcome SystemCompiler::compile(const CompileRequest& request) {
  CompileOutcome result;
  if (path_.empty()) {
    result.status = CompileOutcome::Status::Failed;
    result.message = str_cat("compiler not found: ", name_);
    return result;
  }
  auto start = std::chrono::steady_clock::now();
  auto remaining = [&] {
    return request.timeout_seconds -
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  auto finish = [&](const ProcessOutcome& p, const std::string& what) {
    if (p.timed_out) {
      result.status = CompileOutcome::Status::TimedOut;
      result.message = str_cat(what, " passed the build timeout of ", request.timeout_seconds, " s");
    } else if (!p.launched || p.exit_code != 0) {
      result.status = CompileOutcome::Status::Failed;
      result.message = trim(p.output);
      if (result.message.empty()) result.message = str_cat(what, " exited with code ", p.exit_code);
    }
    return result.status == CompileOutcome::Status::Ok;
  };

  bool shared = std::find(request.flags.begin(), request.flags.end(), "-shared") != request.flags.end();
  if (!shared || !links_directly()) {
    std::vector<std::string> args = request.flags;
    args.insert(args.end(), {"-o", request.output_path, request.source_path, "-lm"});
    finish(run_process(path_, args, remaining()), "the compiler");
    return result;
  }
  std::string object = request.output_path + ".o";
  std::vector<std::string> args;
  for (const std::string& f : request.flags) {
    if (f != "-shared") args.push_back(f);
  }
  bool openmp = std::find(args.begin(), args.end(), "-fopenmp") != args.end();
  args.insert(args.end(), {"-c", "-o", object, request.source_path});
  if (!finish(run_process(path_, args, remaining()), "the compiler")) return result;
  result = linker_.link(object, request.output_path, openmp, remaining());
  std::error_code ec;
  std::filesystem::remove(object, ec);
  return result;
}

}  // namespace mrd::measure
