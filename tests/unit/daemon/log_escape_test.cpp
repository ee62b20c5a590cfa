#include "daemon/server/log_escape.h"

#include <catch2/catch.hpp>

using mrd::daemon::log_quoted;

TEST_CASE("peer text is quoted with every control, quote and non-ASCII byte escaped") {
  CHECK(log_quoted("measurer") == "\"measurer\"");
  CHECK(log_quoted("a\nb\r\tc") == "\"a\\nb\\r\\tc\"");
  CHECK(log_quoted("say \"hi\" \\o/") == "\"say \\\"hi\\\" \\\\o/\"");
  CHECK(log_quoted(std::string("\0\x1b[31m\x7f\xff", 8)) == "\"\\x00\\x1b[31m\\x7f\\xff\"");
  CHECK(log_quoted(std::string(200, 'x'), 4) == "\"xxxx\"...");
}
