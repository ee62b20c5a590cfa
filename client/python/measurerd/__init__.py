"""Python client of measurerd, the measurement service for tensor-program auto-tuning.

    import measurerd
    with measurerd.Client() as c:
        results = c.measure(["matmul", 512, 512, 512, "float32"],
                            [[], [["SP", 2, 0, 512, [16, 2, 2], 1], ["AN", 2, 0, 3]]],
                            {"number": 3, "repeat": 1})

Standard library only. The TVM adapters are in ``measurerd.tvm`` (imported only when TVM is).
"""

from .broker import BrokerClient, local_device_key
from .client import CANCELLED_MESSAGE, Client, default_socket_path
from .errors import (ConnectError, DaemonGone, MeasurerdError, PeerNotAllowed, ProtocolError,
                     RequestRefused, ServerError, ShuttingDown)
from .records import Record, RecordError, append_records, best_records, make_record, read_records
from .task import (DEFAULT_TARGET, FunctionWorkload, HardwareParams, Task, TensorWorkload,
                   task_to_binary)
from .wire import (ErrorCode, MeasureErrorNo, MeasureOptions, MeasureResult, Status,
                   TimingPolicy, Welcome)

__version__ = "0.1.0"

__all__ = [
    "BrokerClient", "CANCELLED_MESSAGE", "Client", "ConnectError", "DEFAULT_TARGET", "DaemonGone", "ErrorCode",
    "FunctionWorkload", "HardwareParams", "MeasureErrorNo", "MeasureOptions", "MeasureResult",
    "MeasurerdError", "PeerNotAllowed", "ProtocolError", "Record", "RecordError",
    "RequestRefused", "ServerError", "ShuttingDown", "Status", "Task", "TensorWorkload", "TimingPolicy", "Welcome",
    "append_records", "best_records", "default_socket_path", "local_device_key", "make_record",
    "read_records",
    "task_to_binary",
]
