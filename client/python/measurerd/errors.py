"""Typed errors of the client. Measurement failures are never exceptions: they are results
with an error_no (MeasureErrorNo)."""

from .wire import ErrorCode, error_code_name


class MeasurerdError(Exception):
    """Base class of every error of this package."""


class ConnectError(MeasurerdError, ConnectionError):
    """measurerd cannot be reached at the socket (not running, wrong path, no permission)."""


class DaemonGone(MeasurerdError, ConnectionError):
    """The connection closed or broke: measurerd stopped, crashed or dropped this client."""


class ProtocolError(MeasurerdError):
    """measurerd sent bytes that are not a valid frame or message here."""


class ServerError(MeasurerdError):
    """measurerd answered with an Error frame."""

    def __init__(self, code: int, request_id: int, message: str):
        self.code = code
        self.code_name = error_code_name(code)
        self.request_id = request_id
        self.server_message = message
        super().__init__("measurerd: %s: %s" % (self.code_name, message))


class PeerNotAllowed(ServerError):
    """This process's uid and groups may not use the daemon (PEER_NOT_ALLOWED, at connect)."""


class RequestRefused(ServerError):
    """A request the daemon refused: an option out of range (INVALID_REQUEST), a duplicate id,
    too many requests in flight. The connection stays usable."""


class ShuttingDown(ServerError, DaemonGone):
    """The daemon is stopping (SHUTTING_DOWN); the connection closes."""


def server_error(code: int, request_id: int, message: str) -> ServerError:
    """The most specific ServerError class for an Error frame."""
    cls = {
        ErrorCode.PEER_NOT_ALLOWED: PeerNotAllowed,
        ErrorCode.SHUTTING_DOWN: ShuttingDown,
        ErrorCode.INVALID_REQUEST: RequestRefused,
        ErrorCode.DUPLICATE_REQUEST: RequestRefused,
    }.get(code, ServerError)
    return cls(code, request_id, message)
