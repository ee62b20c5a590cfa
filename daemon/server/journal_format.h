// Log lines the journal understands. Under systemd, stderr is a stream to journald
// (JOURNAL_STREAM names it as "device:inode"), which takes a leading "<N>" as the line's
// syslog priority (sd-daemon(3)): without it every line would be logged at one priority.
#pragma once

#include <spdlog/common.h>
#include <spdlog/formatter.h>

#include <memory>
#include <string>

namespace mrd::daemon {

/// The syslog priority of a log level: 2 critical, 3 error, 4 warning, 6 info, 7 debug and
/// trace.
int journal_priority(spdlog::level::level_enum level);
/// "<N>" for the level's priority.
std::string journal_prefix(spdlog::level::level_enum level);
/// True when `journal_stream` (the value of JOURNAL_STREAM, may be null) names the file open
/// as `fd`: then that descriptor leads to the journal.
bool is_journal_stream(const char* journal_stream, int fd);
/// The daemon's line format: "<N>[level] message" for the journal (which adds its own time
/// stamp), else "date time [level] message".
std::unique_ptr<spdlog::formatter> make_log_formatter(bool journal);

}  // namespace mrd::daemon
