#include "daemon/server/journal_format.h"

#include <fcntl.h>
#include <spdlog/logger.h>
#include <spdlog/sinks/ostream_sink.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <sstream>

#include "tests/support/temp_dir.h"

using namespace mrd::daemon;
namespace lvl = spdlog::level;

namespace {

/// The lines a logger with the daemon's formatter writes.
std::string logged(bool journal) {
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_st>(out);
  sink->set_formatter(make_log_formatter(journal));
  spdlog::logger log("test", sink);
  log.set_level(lvl::trace);
  log.debug("a {}", 1);
  log.info("started");
  log.warn("worker died");
  log.error("cannot bind");
  log.critical("internal");
  return out.str();
}

}  // namespace

TEST_CASE("log levels map to the syslog priorities the journal reads") {
  CHECK(journal_priority(lvl::trace) == 7);
  CHECK(journal_priority(lvl::debug) == 7);
  CHECK(journal_priority(lvl::info) == 6);
  CHECK(journal_priority(lvl::warn) == 4);
  CHECK(journal_priority(lvl::err) == 3);
  CHECK(journal_priority(lvl::critical) == 2);
  CHECK(journal_prefix(lvl::warn) == "<4>");
}

TEST_CASE("journal lines start with their priority and carry no time stamp") {
  CHECK(logged(true) ==
        "<7>[debug] a 1\n<6>[info] started\n<4>[warning] worker died\n<3>[error] cannot bind\n"
        "<2>[critical] internal\n");
}

TEST_CASE("lines for a terminal or a file have a time stamp and no priority prefix") {
  std::istringstream lines(logged(false));
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    ++n;
    CHECK(line.front() != '<');
    CHECK(line.find(" [") == 23);  // "YYYY-MM-DD HH:MM:SS.mmm [level] ..."
  }
  CHECK(n == 5);
}

TEST_CASE("JOURNAL_STREAM counts only when it names the descriptor's file") {
  mrd::testing::TempDir dir("measurerd-journal");
  std::string path = dir.file("stream");
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  REQUIRE(fd >= 0);
  struct stat st;
  REQUIRE(::fstat(fd, &st) == 0);
  std::string self = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  std::string other = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino + 1);
  CHECK(is_journal_stream(self.c_str(), fd));
  CHECK_FALSE(is_journal_stream(other.c_str(), fd));
  CHECK_FALSE(is_journal_stream(nullptr, fd));
  CHECK_FALSE(is_journal_stream("", fd));
  CHECK_FALSE(is_journal_stream((self + "x").c_str(), fd));
  CHECK_FALSE(is_journal_stream("garbage", fd));
  ::close(fd);
}
