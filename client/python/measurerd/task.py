"""Tasks as measurerd's workers read them: a workload, a target string and TVM's hardware
parameters, serialized as the opaque task bytes of a MeasureRequest (common/measure/task.h and
common/registry/workload_codec.h describe the layout).

A workload is a function workload, a registered workload called by name with arguments, which
every worker rebuilds from its own registry (TVM's ``make_workload_key`` form,
``["matmul", 512, 512, 512, "float32"]``), or a tensor workload carrying its whole tensor list
as one DAG archive (measurerd.dag).
"""

import json
import struct
from dataclasses import dataclass, field
from typing import List, Union

DEFAULT_TARGET = "llvm -keys=cpu"
MAX_TARGET_BYTES = 4096
MAX_WORKLOAD_ARGS = 64

Arg = Union[int, float, str]


@dataclass
class HardwareParams:
    """TVM's HardwareParams (CPU part). num_cores 0: every core the worker may use."""

    num_cores: int = 0
    vector_unit_bytes: int = 64
    cache_line_bytes: int = 64


@dataclass
class FunctionWorkload:
    name: str
    args: List[Arg] = field(default_factory=list)

    def key(self) -> str:
        """TVM's workload key: ``json.dumps([name, *args])``."""
        return json.dumps([self.name] + list(self.args))

    @staticmethod
    def from_key(key: str) -> "FunctionWorkload":
        """The workload of a function workload key; ValueError for any other key."""
        try:
            k = json.loads(key)
        except ValueError:
            raise ValueError("workload key %r is not JSON" % key) from None
        if not isinstance(k, list) or not k or not isinstance(k[0], str):
            raise ValueError("workload key %s is not a function workload's" % key)
        for a in k[1:]:
            if isinstance(a, bool) or not isinstance(a, (int, float, str)):
                raise ValueError("workload key %s: argument %s is not a number or a string"
                                 % (key, json.dumps(a)))
        return FunctionWorkload(k[0], k[1:])


@dataclass
class TensorWorkload:
    """A workload given as its tensors: a DAG archive (measurerd.dag) under a key (TVM's key
    of the same workload, so that records name it as TVM does)."""

    workload_key: str
    archive: bytes

    def key(self) -> str:
        return self.workload_key


@dataclass
class Task:
    workload: Union[FunctionWorkload, TensorWorkload]
    target: str = DEFAULT_TARGET
    hardware: HardwareParams = field(default_factory=HardwareParams)
    #: TVM's LayoutRewriteOption: 1 (TVM's default for llvm) inserts a layout transform
    #: stage for layout-free inputs (dense's weight), 0 none.
    layout_rewrite_option: int = 1


def as_workload(w):
    """A FunctionWorkload from one, a key string, a (name, *args) sequence, or a task-file dict
    ``{"function": name, "args": [...]}``; a TensorWorkload as it is."""
    if isinstance(w, (FunctionWorkload, TensorWorkload)):
        return w
    if isinstance(w, str):
        return FunctionWorkload.from_key(w)
    if isinstance(w, dict):
        if "function" not in w:
            raise ValueError("a workload dict needs \"function\" (inline DAGs are not written "
                             "from Python)")
        return FunctionWorkload(w["function"], list(w.get("args", [])))
    if isinstance(w, (list, tuple)) and w and isinstance(w[0], str):
        return FunctionWorkload(w[0], list(w[1:]))
    raise TypeError("not a workload: %r" % (w,))


def as_task(task_or_workload, target=None, hardware=None) -> Task:
    if isinstance(task_or_workload, Task):
        t = task_or_workload
        return Task(t.workload, target if target is not None else t.target,
                    hardware if hardware is not None else t.hardware, t.layout_rewrite_option)
    return Task(as_workload(task_or_workload), target if target is not None else DEFAULT_TARGET,
                hardware if hardware is not None else HardwareParams())


def _u32_str(s: str) -> bytes:
    b = s.encode()
    return struct.pack("<I", len(b)) + b


def workload_to_binary(w) -> bytes:
    if isinstance(w, TensorWorkload):
        key = w.workload_key.encode()
        return b"".join([b"MRDW", bytes([1, 2]), struct.pack("<I", len(key)), key,
                         struct.pack("<Q", len(w.archive)), w.archive])
    if not w.name:
        raise ValueError("a function workload needs a name")
    if len(w.args) > MAX_WORKLOAD_ARGS:
        raise ValueError("workload %s has more than %d arguments" % (w.name, MAX_WORKLOAD_ARGS))
    out = [b"MRDW", bytes([1, 1]), _u32_str(w.name), struct.pack("<I", len(w.args))]
    for a in w.args:
        if isinstance(a, bool):
            raise TypeError("workload %s: a bool argument is neither a number nor a string"
                            % w.name)
        if isinstance(a, int):
            if not -(1 << 63) <= a < (1 << 63):
                raise ValueError("workload %s: integer argument %d out of range" % (w.name, a))
            out.append(b"\x01" + struct.pack("<q", a))
        elif isinstance(a, float):
            out.append(b"\x02" + struct.pack("<d", a))
        elif isinstance(a, str):
            out.append(b"\x03" + _u32_str(a))
        else:
            raise TypeError("workload %s: argument %r is not an int, float or str" % (w.name, a))
    return b"".join(out)


def task_to_binary(t: Task) -> bytes:
    target = t.target.encode()
    if len(target) > MAX_TARGET_BYTES:
        raise ValueError("target of %d bytes exceeds %d" % (len(target), MAX_TARGET_BYTES))
    h = t.hardware
    w = workload_to_binary(t.workload)
    if t.layout_rewrite_option not in (0, 1, 2):
        raise ValueError("layout_rewrite_option %r: TVM's are 0, 1 and 2" % (t.layout_rewrite_option,))
    return b"".join([b"MRDT", b"\x02", struct.pack("<I", len(target)), target,
                     struct.pack("<iii", h.num_cores, h.vector_unit_bytes, h.cache_line_bytes),
                     bytes([t.layout_rewrite_option]), struct.pack("<Q", len(w)), w])


def state_text(state) -> str:
    """A state as the wire carries it: the JSON text of its transform steps. Takes the text
    itself, a list of steps, or TVM's full state form ``[[], steps]``."""
    if isinstance(state, (bytes, bytearray)):
        return bytes(state).decode()
    if isinstance(state, str):
        return state
    steps = list(state)
    if len(steps) == 2 and steps[0] == [] and isinstance(steps[1], list) and \
            all(isinstance(s, list) for s in steps[1]):
        steps = steps[1]
    return json.dumps(steps)
