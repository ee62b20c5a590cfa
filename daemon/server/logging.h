// The daemon's logs: spdlog to stderr (the journal under systemd, each line with its priority)
// or to a file; reopening the file is what SIGHUP does, for log rotation. Levels: error = a fault of measurerd or its
// environment; warn = a worker died or timed out, a client sent bad bytes; info = start, stop,
// connections; debug = every request and worker event.
#pragma once

#include <string>

namespace mrd::daemon {

/// Installs the default logger. `file` empty: stderr. Throws UserError for a bad level name or
/// a file that cannot be opened.
void setup_logging(const std::string& file, const std::string& level);
/// Reopens the log file (no-op for stderr). When the file cannot be opened, the old sink is
/// kept, a warning says so on it, and the result is false.
bool reopen_logs();

}  // namespace mrd::daemon
