#include "daemon/server/logging.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "common/util/error.h"

namespace mrd::daemon {
namespace {

std::string g_file;
spdlog::level::level_enum g_level = spdlog::level::info;

void install() {
  spdlog::drop("measurerd");
  auto logger = g_file.empty() ? spdlog::stderr_logger_st("measurerd")
                               : spdlog::basic_logger_st("measurerd", g_file);
  logger->set_level(g_level);
  logger->flush_on(spdlog::level::info);
  // Under systemd the journal adds its own time stamp.
  logger->set_pattern(std::getenv("JOURNAL_STREAM") ? "[%l] %v" : "%Y-%m-%d %H:%M:%S.%e [%l] %v");
  spdlog::set_default_logger(logger);
}

}  // namespace

void setup_logging(const std::string& file, const std::string& level) {
  auto l = spdlog::level::from_str(level);
  MRD_USER_CHECK(l != spdlog::level::off || level == "off", "unknown log level '", level, "'");
  g_file = file;
  g_level = l;
  install();
}

void reopen_logs() {
  if (g_file.empty()) return;
  install();
  spdlog::info("log file reopened");
}

}  // namespace mrd::daemon
