#!/usr/bin/python3
"""The installed package, used as a program outside the tree would use it.

Installs the build with `cmake --install BUILD --prefix TMP`, then checks that:
  - the public headers include only the standard library and each other, and each compiles
    alone under -std=c++17 and -std=c++20 (-Wall -Wextra -Werror -pedantic);
  - libmeasurerd-client.so depends on neither LLVM nor Boost, spdlog or fmt, and exports only
    namespace measurerd;
  - client/examples configures with find_package(measurerd CONFIG) against TMP and builds,
    once under each standard; `pkg-config --cflags --libs measurerd` builds it too;
  - the examples measure a task's states through a real measurerd installed in TMP (started
    here, ready on its own READY=1, stopped with SIGTERM), and a missing daemon gets the hint.

    install_test.py --build-dir BUILD --source-dir SRC --libdir LIBDIR
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile

READY_GUARD_SECONDS = 120  # a guard against a hung daemon, not a synchronisation
STANDARDS = ("17", "20")
FORBIDDEN_NEEDED = re.compile(r"LLVM|boost|spdlog|fmt|cereal")


def run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if r.returncode != 0:
        sys.exit("FAILED (exit %d): %s\n%s" % (r.returncode, " ".join(cmd), r.stdout))
    return r.stdout


def check(cond, what):
    if not cond:
        sys.exit("FAILED: " + what)
    print("ok:", what.split("\n")[0])


def check_headers(prefix):
    inc = os.path.join(prefix, "include", "measurerd")
    headers = sorted(os.listdir(inc))
    for h in ("measurerd.h", "client.h", "task.h", "types.h", "record.h", "version.h"):
        check(h in headers, "include/measurerd/%s is installed" % h)
    for h in headers:
        text = open(os.path.join(inc, h)).read()
        foreign = [i for i in re.findall(r'^\s*#\s*include\s*(\S+)', text, re.M)
                   if not re.fullmatch(r'"measurerd/[a-z_]+\.h"|<[a-z_]+>', i)]
        check(not foreign, "%s includes only the standard library and measurerd/ %s"
              % (h, " ".join(foreign)))
        for std in STANDARDS:
            run(["c++", "-std=c++" + std, "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
                 "-pedantic", "-I", os.path.join(prefix, "include"), "-x", "c++", "-"],
                input="#include <measurerd/%s>\n" % h)
        print("ok: %s compiles alone under C++%s" % (h, " and C++".join(STANDARDS)))


def check_library(lib):
    needed = re.findall(r"\(NEEDED\).*\[(.*)\]", run(["readelf", "-d", lib]))
    check(needed and not any(FORBIDDEN_NEEDED.search(n) for n in needed),
          "libmeasurerd-client.so needs no LLVM, Boost, spdlog or fmt: %s" % ", ".join(needed))
    symbols = run(["nm", "-D", "--defined-only", "-C", lib]).splitlines()
    foreign = [s for s in symbols if "measurerd::" not in s]
    check(symbols and not foreign, "libmeasurerd-client.so exports only namespace measurerd"
          + ("" if not foreign else ": " + "; ".join(foreign[:5])))


def build_examples(src, prefix, work):
    built = {}
    for std in STANDARDS:
        b = os.path.join(work, "examples-c++" + std)
        run(["cmake", "-S", os.path.join(src, "client", "examples"), "-B", b,
             "-DCMAKE_PREFIX_PATH=" + prefix, "-DCMAKE_CXX_STANDARD=" + std,
             "-DCMAKE_CXX_STANDARD_REQUIRED=ON", "-DCMAKE_CXX_EXTENSIONS=OFF",
             "-DCMAKE_CXX_FLAGS=-Wall -Wextra -Werror", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"])
        run(["cmake", "--build", b])
        commands = json.load(open(os.path.join(b, "compile_commands.json")))
        check(all("-std=c++" + std in c["command"] for c in commands),
              "client/examples builds with find_package(measurerd) under -std=c++" + std)
        built[std] = os.path.join(b, "measure_states")
    return built


def build_with_pkg_config(src, prefix, libdir, work):
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(prefix, libdir, "pkgconfig"))
    flags = run(["pkg-config", "--cflags", "--libs", "measurerd"], env=env).split()
    normalized = ["-I" + os.path.normpath(f[2:]) if f.startswith("-I") else f for f in flags]
    check("-I" + os.path.join(prefix, "include") in normalized and "-lmeasurerd-client" in flags,
          "pkg-config --cflags --libs measurerd: " + " ".join(flags))
    exe = os.path.join(work, "measure_states-pkg-config")
    run(["c++", "-std=c++20", "-Wall", "-Wextra", "-Werror",
         os.path.join(src, "client", "examples", "measure_states.cpp"), "-o", exe] + flags)
    return exe


class Daemon:
    def __init__(self, prefix, work):
        self.socket = os.path.join(work, "measurerd.sock")
        notify_path = os.path.join(work, "notify.sock")
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(notify_path)
        notify.settimeout(READY_GUARD_SECONDS)
        self.proc = subprocess.Popen(
            [os.path.join(prefix, "bin", "measurerd"), "--socket", self.socket, "--workers", "1",
             "--cache-dir", os.path.join(work, "cache")],
            env=dict(os.environ, NOTIFY_SOCKET=notify_path),
            stderr=open(os.path.join(work, "measurerd.log"), "w"))
        try:
            while b"READY=1" not in notify.recv(4096):
                pass
        except socket.timeout:
            self.stop()
            sys.exit("FAILED: measurerd did not get ready; its log:\n"
                     + open(os.path.join(work, "measurerd.log")).read())
        finally:
            notify.close()

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=READY_GUARD_SECONDS)


def measure_through_daemon(prefix, work, programs, libdir):
    task = os.path.join(work, "task.json")
    with open(task, "w") as f:
        json.dump({"workload": {"function": "matmul", "args": [16, 16, 16, "float32"]},
                   "options": {"number": 1, "repeat": 1, "min_repeat_ms": 0},
                   "states": [[], [["SP", 2, 0, 16, [4], 1]]]}, f)
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(prefix, libdir))
    d = Daemon(prefix, work)
    try:
        for name, exe in programs.items():
            out = run([exe, task, d.socket], env=env)
            check(re.search(r"^0 NO_ERROR [0-9.]+ ms [0-9.]+ GFLOP/s$", out, re.M)
                  and re.search(r"^1 NO_ERROR ", out, re.M),
                  "the %s example measures both states through the installed measurerd:\n%s"
                  % (name, out))
    finally:
        rc = d.stop()
    check(rc == 0, "measurerd stopped cleanly on SIGTERM")
    r = subprocess.run([programs["c++20"], task, os.path.join(work, "no-daemon.sock")], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    check(r.returncode == 1 and "systemctl start measurerd.socket" in r.stdout
          and "MEASURERD_SOCKET" in r.stdout,
          "a missing daemon is a ConnectionError with the hint:\n" + r.stdout)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build-dir", required=True)
    p.add_argument("--source-dir", required=True)
    p.add_argument("--libdir", default="lib")
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="measurerd-install-")
    try:
        prefix = os.path.join(work, "prefix")
        run(["cmake", "--install", a.build_dir, "--prefix", prefix])
        for f in ("bin/measurerd", "bin/measurerd-worker", "bin/measurer",
                  a.libdir + "/libmeasurerd-client.so",
                  a.libdir + "/cmake/measurerd/measurerdConfig.cmake",
                  a.libdir + "/pkgconfig/measurerd.pc", "share/doc/measurerd/protocol.md"):
            check(os.path.exists(os.path.join(prefix, f)), f + " is installed")
        check_headers(prefix)
        check_library(os.path.join(prefix, a.libdir, "libmeasurerd-client.so"))
        programs = {"c++" + s: exe for s, exe in build_examples(a.source_dir, prefix, work).items()}
        programs["pkg-config"] = build_with_pkg_config(a.source_dir, prefix, a.libdir, work)
        measure_through_daemon(prefix, work, programs, a.libdir)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("PASSED")


if __name__ == "__main__":
    main()
