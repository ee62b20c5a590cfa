#include "daemon/server/logging.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "common/util/error.h"
#include "daemon/server/journal_format.h"

namespace mrd::daemon {
namespace {

std::string g_file;
spdlog::level::level_enum g_level = spdlog::level::info;

/// A logger on a new sink: stderr, or the file opened afresh. Throws spdlog_ex when the file
/// cannot be opened; nothing is replaced then.
std::shared_ptr<spdlog::logger> make_logger() {
  spdlog::sink_ptr sink;
  if (g_file.empty())
    sink = std::make_shared<spdlog::sinks::stderr_sink_st>();
  else
    sink = std::make_shared<spdlog::sinks::basic_file_sink_st>(g_file);
  auto logger = std::make_shared<spdlog::logger>("measurerd", std::move(sink));
  logger->set_level(g_level);
  logger->flush_on(spdlog::level::info);
  // On the journal's stream each line carries its priority; a file gets time stamps.
  logger->set_formatter(
      make_log_formatter(g_file.empty() && is_journal_stream(std::getenv("JOURNAL_STREAM"), STDERR_FILENO)));
  return logger;
}

}  // namespace

void setup_logging(const std::string& file, const std::string& level) {
  auto l = spdlog::level::from_str(level);
  MRD_USER_CHECK(l != spdlog::level::off || level == "off", "unknown log level '", level, "'");
  g_file = file;
  g_level = l;
  std::shared_ptr<spdlog::logger> logger;
  try {
    logger = make_logger();
  } catch (const spdlog::spdlog_ex& e) {
    throw UserError(str_cat("cannot open log file ", file, ": ", e.what()));
  }
  spdlog::set_default_logger(std::move(logger));
}

bool reopen_logs() {
  if (g_file.empty()) return true;
  std::shared_ptr<spdlog::logger> logger;
  try {
    logger = make_logger();
  } catch (const spdlog::spdlog_ex& e) {
    // The old sink still holds the file it had open (perhaps renamed): keep writing there.
    spdlog::warn("cannot reopen log file {}: {}; still logging to the file opened before",
                 g_file, e.what());
    return false;
  }
  spdlog::set_default_logger(std::move(logger));
  spdlog::info("log file reopened");
  return true;
}

}  // namespace mrd::daemon
