"""A minimal blocking Redis client (RESP2) over a TCP or Unix socket, standard library only: as
much as the broker client needs. Replies are bytes, ints, lists, None, or RedisReplyError for
an error reply; a bulk string or array above the limits is refused before it is read."""

import socket
import urllib.parse
from dataclasses import dataclass
from typing import List, Optional

from .errors import ConnectError, DaemonGone, ProtocolError

MAX_BULK = 64 << 20
MAX_ARRAY = 1 << 20


class RedisReplyError(Exception):
    """An error reply of the broker (the connection stays usable)."""


@dataclass
class Endpoint:
    host: str = ""
    port: int = 6379
    unix_path: str = ""
    db: int = 0
    user: str = ""
    password: str = ""

    def text(self) -> str:
        who = self.user + "@" if self.user else ""
        if self.unix_path:
            return "unix://%s%s%s" % (who, self.unix_path, "?db=%d" % self.db if self.db else "")
        return "redis://%s%s:%d%s" % (who, self.host, self.port, "/%d" % self.db if self.db else "")


def parse_url(url: str, password_file: Optional[str] = None) -> Endpoint:
    """redis://[USER[:PASSWORD]@]HOST[:PORT][/DB] or unix://[USER[:PASSWORD]@]/PATH[?db=N]; a
    password file's first line is PASSWORD or "USER PASSWORD". Raises ValueError."""
    e = Endpoint()
    if url.startswith("unix://"):
        rest = url[len("unix://"):]
        if "@" in rest:
            cred, rest = rest.split("@", 1)
            e.user, _, e.password = cred.rpartition(":") if ":" in cred else ("", "", cred)
        path, _, query = rest.partition("?")
        if not path.startswith("/"):
            raise ValueError("broker URL %s: a Unix socket URL is unix:///absolute/path" % url)
        if query:
            if not query.startswith("db=") or not query[3:].isdigit():
                raise ValueError("broker URL %s: the only query is ?db=N" % url)
            e.db = int(query[3:])
        e.unix_path = path
    elif url.startswith("redis://"):
        u = urllib.parse.urlsplit(url)
        if not u.hostname:
            raise ValueError("broker URL %s: no host" % url)
        e.host = u.hostname
        try:
            e.port = u.port or 6379
        except ValueError:
            raise ValueError("broker URL %s: bad port" % url) from None
        db = u.path.lstrip("/")
        if db:
            if not db.isdigit():
                raise ValueError("broker URL %s: bad database '%s'" % (url, db))
            e.db = int(db)
        if u.password is not None:
            e.user, e.password = u.username or "", u.password
        elif u.username:
            e.password = u.username
    else:
        raise ValueError("broker URL %s: expected redis://HOST[:PORT][/DB] or unix:///PATH" % url)
    if password_file:
        with open(password_file) as f:
            line = f.readline().strip()
        if not line:
            raise ValueError("broker password file %s is empty" % password_file)
        if " " in line:
            e.user, e.password = line.split(" ", 1)
        else:
            e.password = line
    return e


class Redis:
    def __init__(self, endpoint: Endpoint, timeout: float = 10.0):
        self.endpoint = endpoint
        try:
            if endpoint.unix_path:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self._sock.settimeout(timeout)
                self._sock.connect(endpoint.unix_path)
            else:
                self._sock = socket.create_connection((endpoint.host, endpoint.port), timeout)
        except OSError as e:
            raise ConnectError("cannot connect to the broker %s: %s" % (endpoint.text(), e)) from None
        self._buf = b""
        try:
            if endpoint.password:
                args = ["AUTH", endpoint.user, endpoint.password] if endpoint.user else \
                    ["AUTH", endpoint.password]
                self.command(*args)
            if endpoint.db:
                self.command("SELECT", str(endpoint.db))
        except RedisReplyError as e:
            self.close()
            raise ConnectError("broker %s refused the login: %s" % (endpoint.text(), e)) from None

    def close(self) -> None:
        try:
            self._sock.close()
        except OSError:
            pass

    def command(self, *args):
        """Runs one command; raises RedisReplyError for an error reply, DaemonGone when the
        connection breaks."""
        return self.pipeline([args])[0]

    def pipeline(self, commands) -> List:
        """Sends every command, then reads every reply; error replies raise at the end."""
        out = bytearray()
        for args in commands:
            out += b"*%d\r\n" % len(args)
            for a in args:
                b = a if isinstance(a, (bytes, bytearray)) else str(a).encode()
                out += b"$%d\r\n%s\r\n" % (len(b), b)
        try:
            self._sock.sendall(out)
            replies = [self._read() for _ in commands]
        except OSError as e:
            raise DaemonGone("broker %s: connection lost: %s" % (self.endpoint.text(), e)) from None
        for r in replies:
            if isinstance(r, RedisReplyError):
                raise r
        return replies

    def _line(self) -> bytes:
        while b"\r\n" not in self._buf:
            if len(self._buf) > 65536:
                raise ProtocolError("broker reply line too long")
            chunk = self._sock.recv(65536)
            if not chunk:
                raise DaemonGone("broker %s closed the connection" % self.endpoint.text())
            self._buf += chunk
        line, self._buf = self._buf.split(b"\r\n", 1)
        return line

    def _exact(self, n: int) -> bytes:
        while len(self._buf) < n:
            chunk = self._sock.recv(max(65536, n - len(self._buf)))
            if not chunk:
                raise DaemonGone("broker %s closed the connection" % self.endpoint.text())
            self._buf += chunk
        data, self._buf = self._buf[:n], self._buf[n:]
        return data

    def _read(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest
        if kind == b"-":
            return RedisReplyError(rest.decode(errors="replace"))
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            if n > MAX_BULK:
                raise ProtocolError("broker bulk string of %d bytes exceeds the limit" % n)
            data = self._exact(n + 2)
            return data[:-2]
        if kind == b"*":
            n = int(rest)
            if n < 0:
                return None
            if n > MAX_ARRAY:
                raise ProtocolError("broker array of %d elements exceeds the limit" % n)
            return [self._read() for _ in range(n)]
        raise ProtocolError("unknown broker reply type %r" % kind)
