#include "daemon/server/journal_format.h"

#include <spdlog/pattern_formatter.h>
#include <sys/stat.h>

#include <cinttypes>
#include <cstdio>

namespace mrd::daemon {
namespace {

/// The "%J" flag of the journal pattern: the line's "<N>" priority prefix.
class PriorityFlag : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    std::string p = journal_prefix(msg.level);
    dest.append(p.data(), p.data() + p.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<PriorityFlag>();
  }
};

}  // namespace

int journal_priority(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::critical:
      return 2;
    case spdlog::level::err:
      return 3;
    case spdlog::level::warn:
      return 4;
    case spdlog::level::info:
      return 6;
    default:
      return 7;
  }
}

std::string journal_prefix(spdlog::level::level_enum level) {
  return "<" + std::to_string(journal_priority(level)) + ">";
}

bool is_journal_stream(const char* journal_stream, int fd) {
  if (journal_stream == nullptr) return false;
  uintmax_t dev = 0, ino = 0;
  char end = 0;
  if (std::sscanf(journal_stream, "%" SCNuMAX ":%" SCNuMAX "%c", &dev, &ino, &end) != 2)
    return false;
  struct stat st;
  if (::fstat(fd, &st) != 0) return false;
  return static_cast<uintmax_t>(st.st_dev) == dev && static_cast<uintmax_t>(st.st_ino) == ino;
}

std::unique_ptr<spdlog::formatter> make_log_formatter(bool journal) {
  if (!journal) return std::make_unique<spdlog::pattern_formatter>("%Y-%m-%d %H:%M:%S.%e [%l] %v");
  auto f = std::make_unique<spdlog::pattern_formatter>();
  f->add_flag<PriorityFlag>('J').set_pattern("%J[%l] %v");
  return f;
}

}  // namespace mrd::daemon
