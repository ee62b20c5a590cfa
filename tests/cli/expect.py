#!/usr/bin/python3
"""Runs a command and checks its exit code and output (stdout and stderr together).

    expect.py [--exit N] [--match REGEX]... [--no-match REGEX]... -- COMMAND ARG...

Each REGEX must (or, for --no-match, must not) be found in the output (re.search, MULTILINE).
Exit 0 when every check holds; else 1, printing the command, its output and what failed.
"""
import argparse
import re
import subprocess
import sys


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--exit", type=int, default=0)
    p.add_argument("--match", action="append", default=[])
    p.add_argument("--no-match", action="append", default=[])
    p.add_argument("--stdin", default=None, help="text to feed on stdin (default: none)")
    p.add_argument("command", nargs=argparse.REMAINDER)
    a = p.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    r = subprocess.run(cmd, input=a.stdin or "", stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=300)
    failed = []
    if r.returncode != a.exit:
        failed.append("exit code %d, expected %d" % (r.returncode, a.exit))
    failed += ["no match for %r" % m for m in a.match if not re.search(m, r.stdout, re.M)]
    failed += ["unexpected match for %r" % m for m in a.no_match if re.search(m, r.stdout, re.M)]
    if failed:
        print("command: %s\n--- output ---\n%s--- end ---" % (" ".join(cmd), r.stdout))
        print("\n".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
