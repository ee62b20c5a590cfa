"""A real measurerd for the Python tests: started from the build directory on a socket in a
fresh private directory, with its own build cache and one worker, and stopped (SIGTERM) at
the end. Readiness is the daemon's own READY=1 on a NOTIFY_SOCKET this fixture listens on,
then a Hello answered on the socket (as tests/integration/daemon_fixture.h does) — never a
sleep.

The build directory is $MEASURERD_BUILD_DIR (ctest sets it), else <repo>/build. The package
under test is the source tree's client/python, not an installed copy.
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "client", "python"))
# TVM's LocalBuilder re-imports the module a workload was registered in inside its worker
# processes: they need the package and the tests on their path too.
os.environ["PYTHONPATH"] = os.pathsep.join(
    [os.path.join(REPO, "client", "python"), os.path.dirname(os.path.abspath(__file__))]
    + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])

import measurerd  # noqa: E402

BUILD_DIR = os.environ.get("MEASURERD_BUILD_DIR") or os.path.join(REPO, "build")
READY_GUARD_SECONDS = 120  # a guard against a hung daemon, not a synchronisation


def build_path(rel: str) -> str:
    path = os.path.join(BUILD_DIR, rel)
    if not os.path.exists(path):
        pytest.fail("%s is not built (build the measurerd, measurerd-worker and measurer "
                    "targets, or set MEASURERD_BUILD_DIR)" % path, pytrace=False)
    return path


class Daemon:
    def __init__(self, workers: int = 1, extra=()):
        exe = build_path("daemon/measurerd")
        self.proc = None
        self.dir = tempfile.mkdtemp(prefix="measurerd-pytest-")
        try:
            self._start(exe, workers, extra)
        except BaseException:
            self.stop()  # a daemon that did not start leaves neither a process nor a directory
            raise

    def _start(self, exe: str, workers: int, extra) -> None:
        self.socket = os.path.join(self.dir, "measurerd.sock")
        self.log_path = os.path.join(self.dir, "measurerd.log")
        notify_path = os.path.join(self.dir, "notify.sock")
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(notify_path)
        notify.settimeout(READY_GUARD_SECONDS)
        env = dict(os.environ, NOTIFY_SOCKET=notify_path)
        args = [exe, "--socket", self.socket, "--workers",
                str(workers), "--cache-dir", os.path.join(self.dir, "cache"), "--log-level",
                "debug", *extra]
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(args, env=env, stderr=log, stdout=subprocess.DEVNULL)
        try:
            while b"READY=1" not in notify.recv(4096):
                pass
        except socket.timeout:
            pytest.fail("measurerd did not become ready; its log:\n" + self.log())
        finally:
            # Later STATUS= datagrams would fill an unread queue: with the socket gone, they
            # fail at once, as they would without systemd.
            notify.close()
            os.unlink(notify_path)
        with measurerd.Client(self.socket) as c:  # answers once serving
            assert c.welcome.workers == workers

    def log(self) -> str:
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def terminate(self) -> int:
        """SIGTERM, then the exit code."""
        if self.proc is None:
            return 0
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=60)

    def kill(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=60)

    def stop(self) -> None:
        try:
            self.terminate()
        except subprocess.TimeoutExpired:
            self.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="session")
def daemon():
    """One daemon (one worker) shared by the tests that leave it serving."""
    d = Daemon(workers=1)
    yield d
    d.stop()


@pytest.fixture
def own_daemon():
    """A daemon of the test's own, for tests that stop or kill it."""
    d = Daemon(workers=1)
    yield d
    d.stop()


@pytest.fixture
def client(daemon):
    with measurerd.Client(daemon.socket) as c:
        yield c

