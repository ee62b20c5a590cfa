"""A private measurerd for the benchmarks that measure through the Python client."""

import os
import socket
import subprocess

import measurerd


def start_daemon(build, workers, directory):
    """measurerd on a private socket in `directory`; ready when it says READY=1 and answers a
    Hello. Returns (process, socket path); the caller terminates the process."""
    sock = os.path.join(directory, "measurerd.sock")
    notify_path = os.path.join(directory, "notify.sock")
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(notify_path)
    notify.settimeout(120)
    log = open(os.path.join(directory, "measurerd.log"), "wb")
    proc = subprocess.Popen([os.path.join(build, "daemon", "measurerd"), "--socket", sock,
                             "--workers", str(workers), "--cache-dir",
                             os.path.join(directory, "cache")],
                            env=dict(os.environ, NOTIFY_SOCKET=notify_path), stderr=log)
    while b"READY=1" not in notify.recv(4096):
        pass
    notify.close()
    measurerd.Client(sock).close()
    return proc, sock
