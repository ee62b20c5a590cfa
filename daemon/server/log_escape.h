// Text from a peer on its way into a log line: a client name or a message that quotes peer
// bytes must not start a line of its own, hide as a terminal escape or fill the log. Control
// bytes, backslashes, quotes and non-ASCII bytes become \n, \t, \\, \", \xNN; long text is cut.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mrd::daemon {

/// `text` quoted for a log line, at most `max_bytes` of it (then "..." follows the quote).
std::string log_quoted(std::string_view text, size_t max_bytes = 128);

}  // namespace mrd::daemon
