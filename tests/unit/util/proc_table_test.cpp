// The process table: this process and its parent as /proc shows them, a child seen running
// and among this process's descendants, then as a zombie without a command line, then gone
// once reaped.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>

#include "common/util/proc_table.h"

using namespace mrd;

TEST_CASE("the process table shows this process, its parent and its group") {
  auto self = util::read_process(::getpid());
  REQUIRE(self);
  CHECK(self->pid == ::getpid());
  CHECK(self->ppid == ::getppid());
  CHECK(self->pgid == ::getpgrp());
  CHECK(self->state == 'R');  // reading its own stat, it runs

  auto all = util::list_processes();
  CHECK(std::any_of(all.begin(), all.end(), [](const auto& p) { return p.pid == ::getpid(); }));
  CHECK(std::any_of(all.begin(), all.end(), [](const auto& p) { return p.pid == 1; }));
  CHECK(std::none_of(all.begin(), all.end(), [](const auto& p) { return p.pid <= 0; }));
}

TEST_CASE("a command line has its arguments joined by spaces") {
  int ready[2], hold[2];
  REQUIRE(::pipe(ready) == 0);
  REQUIRE(::pipe(hold) == 0);
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(ready[0]);
    ::close(hold[1]);
    ::dup2(ready[1], 1);
    ::dup2(hold[0], 0);
    // The shell says it runs, then waits for its stdin, which is never written.
    ::execl("/bin/sh", "/bin/sh", "-c", "echo up; read line", "sh with spaces", nullptr);
    ::_exit(127);
  }
  ::close(ready[1]);
  ::close(hold[0]);
  char c = 0;
  REQUIRE(::read(ready[0], &c, 1) == 1);  // the shell has started
  CHECK(util::process_cmdline(child) == "/bin/sh -c echo up; read line sh with spaces");
  auto running = util::read_process(child);
  REQUIRE(running);
  CHECK(running->ppid == ::getpid());
  // Among this process's descendants, which do not include this process itself.
  auto mine = util::descendants(::getpid(), util::list_processes());
  CHECK(std::any_of(mine.begin(), mine.end(), [&](const auto& p) { return p.pid == child; }));
  CHECK(std::none_of(mine.begin(), mine.end(), [](const auto& p) { return p.pid == ::getpid(); }));
  CHECK(util::descendants(child, util::list_processes()).empty());  // the shell waits, alone

  ::kill(child, SIGKILL);
  siginfo_t info{};
  // Waits until it has exited, leaving it a zombie.
  REQUIRE(::waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT) == 0);
  auto zombie = util::read_process(child);
  REQUIRE(zombie);
  CHECK(zombie->state == 'Z');
  CHECK(util::process_cmdline(child).empty());

  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK_FALSE(util::read_process(child));
  CHECK(util::process_cmdline(child).empty());
  ::close(ready[0]);
  ::close(hold[1]);
}
