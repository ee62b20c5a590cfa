"""Tuning records in TVM's auto_scheduler log format (JSON lines, "v": "v0.6"), as
proto-docs/records.md describes them: logs written here load with TVM's
``auto_scheduler.load_records`` and measurerd's ``measurer replay``, and logs from either are
read here.

    {"i": [[workload_key, target, [num_cores, vector_unit_bytes, cache_line_bytes, 0, 0, 0, 0, 0],
            target_host, layout_rewrite_option, [task_input_names]], [[], steps]],
     "r": [[costs], error_no, all_cost, timestamp], "v": "v0.6"}
"""

import json
import math
from dataclasses import dataclass, field
from typing import Iterable, Iterator, List, Optional, TextIO, Union

from .task import FunctionWorkload, HardwareParams, Task, state_text
from .wire import MeasureErrorNo, MeasureResult

#: TVM's cost for a failed measurement (auto_scheduler's MAX_FLOAT).
ERROR_COST = 1e10
VERSION = "v0.6"


class RecordError(ValueError):
    """A line that is not a record; the message names the line number and what is wrong."""


@dataclass
class Record:
    workload_key: str
    target: str
    hardware: HardwareParams
    steps: list  # the transform steps, TVM's record syntax
    costs: List[float]
    error_no: int
    all_cost: float
    timestamp: float
    target_host: str = ""
    layout_rewrite_option: int = 1
    task_input_names: List[str] = field(default_factory=list)
    version: str = VERSION

    @property
    def ok(self) -> bool:
        return self.error_no == MeasureErrorNo.NO_ERROR

    @property
    def mean_cost(self) -> Optional[float]:
        if not self.ok or not self.costs:
            return None
        return sum(self.costs) / len(self.costs)

    def task(self) -> Task:
        """The task this record measured; ValueError unless its key is a function workload's."""
        return Task(FunctionWorkload.from_key(self.workload_key), self.target, self.hardware,
                    self.layout_rewrite_option)

    def result(self) -> MeasureResult:
        return MeasureResult(costs=list(self.costs), error_no=self.error_no,
                             all_cost=self.all_cost, timestamp=self.timestamp)


def make_record(task: Task, state, result: MeasureResult) -> Record:
    """The record of measuring `state` of `task` with `result`."""
    return Record(workload_key=task.workload.key(), target=task.target,
                  hardware=HardwareParams(task.hardware.num_cores,
                                          task.hardware.vector_unit_bytes,
                                          task.hardware.cache_line_bytes),
                  steps=json.loads(state_text(state)), costs=list(result.costs),
                  error_no=int(result.error_no), all_cost=result.all_cost,
                  timestamp=result.timestamp, layout_rewrite_option=task.layout_rewrite_option)


def _number(v: float) -> str:
    if not math.isfinite(v):
        return "1e+10"
    return "%.9g" % v


def _dump(v) -> str:
    """JSON as TVM writes it: ", " between elements, ": " after keys, floats as %.9g."""
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_dump(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(json.dumps(k) + ": " + _dump(x) for k, x in v.items()) + "}"
    if isinstance(v, float):
        return _number(v)
    return json.dumps(v)


def to_line(r: Record) -> str:
    """One line, without the newline."""
    costs = list(r.costs)
    if not costs and r.error_no != MeasureErrorNo.NO_ERROR:
        costs = [ERROR_COST]
    ts = r.timestamp
    timestamp = str(int(math.floor(ts))) if math.isfinite(ts) and abs(ts) < 2.0**53 else "0"
    hw = r.hardware
    task = "[%s, %s, [%d, %d, %d, 0, 0, 0, 0, 0], %s, %d, %s]" % (
        json.dumps(r.workload_key), json.dumps(r.target), hw.num_cores, hw.vector_unit_bytes,
        hw.cache_line_bytes, json.dumps(r.target_host), r.layout_rewrite_option,
        _dump(list(r.task_input_names)))
    return '{"i": [%s, [[], %s]], "r": [[%s], %d, %s, %s], "v": %s}' % (
        task, _dump(list(r.steps)), ", ".join(_number(float(c)) for c in costs),
        int(r.error_no), _number(float(r.all_cost)), timestamp, json.dumps(r.version))


def _int(v, what):
    if isinstance(v, bool) or not isinstance(v, int):
        raise RecordError("%s must be an integer, got %s" % (what, json.dumps(v)))
    return v


def _at(v, i, what):
    if not isinstance(v, list) or i >= len(v):
        raise RecordError("missing " + what)
    return v[i]


def _number_field(v, what):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise RecordError("%s must be a number" % what)
    return float(v)


def from_line(line: str) -> Record:
    try:
        j = json.loads(line)
    except ValueError as e:
        raise RecordError("not JSON: %s" % e) from None
    if not isinstance(j, dict) or "i" not in j or "r" not in j:
        raise RecordError('expected an object with "i" and "r"')
    task = _at(j["i"], 0, "task")
    state = _at(j["i"], 1, "state")
    key = _at(task, 0, "workload key")
    target = _at(task, 1, "target")
    if not isinstance(key, str):
        raise RecordError("workload key must be a string")
    if not isinstance(target, str):
        raise RecordError("target must be a string")
    hw = HardwareParams()
    if len(task) > 2:
        h = task[2]
        if not isinstance(h, list) or len(h) < 3:
            raise RecordError("hardware params must be a list")
        hw = HardwareParams(_int(h[0], "num_cores"), _int(h[1], "vector_unit_bytes"),
                            _int(h[2], "cache_line_bytes"))
    target_host = task[3] if len(task) > 3 and isinstance(task[3], str) else ""
    layout = _int(task[4], "layout_rewrite_option") if len(task) > 4 else 1
    names = [n for n in task[5] if isinstance(n, str)] if len(task) > 5 and \
        isinstance(task[5], list) else []
    steps = _at(state, 1, "steps")
    if not isinstance(steps, list):
        raise RecordError("steps must be a list")
    res = j["r"]
    costs = _at(res, 0, "costs")
    if not isinstance(costs, list):
        raise RecordError("costs must be a list")
    costs = [_number_field(c, "a cost") for c in costs]
    error_no = _int(_at(res, 1, "error_no"), "error_no")
    if not 0 <= error_no <= MeasureErrorNo.UNKNOWN_ERROR:
        raise RecordError("unknown error_no %d" % error_no)
    all_cost = _number_field(_at(res, 2, "all_cost"), "all_cost")
    timestamp = _number_field(_at(res, 3, "timestamp"), "timestamp")
    if not math.isfinite(timestamp) or abs(timestamp) >= 2.0**53:
        raise RecordError("timestamp out of range")
    version = j["v"] if isinstance(j.get("v"), str) else VERSION
    return Record(key, target, hw, steps, costs, error_no, all_cost, timestamp, target_host,
                  layout, names, version)


def read_records(source: Union[str, TextIO, Iterable[str]]) -> List[Record]:
    """Every record of a file (a path, an open file or lines); blank lines are skipped and a
    bad line raises RecordError naming its line number."""
    return list(iter_records(source))


def iter_records(source) -> Iterator[Record]:
    if isinstance(source, str):
        with open(source) as f:
            yield from iter_records(f)
        return
    for n, line in enumerate(source, 1):
        if not line.strip():
            continue
        try:
            yield from_line(line)
        except RecordError as e:
            raise RecordError("line %d: %s" % (n, e)) from None


def append_records(path: str, records: Iterable[Record]) -> None:
    with open(path, "a") as f:
        for r in records:
            f.write(to_line(r) + "\n")


def best_records(records: Iterable[Record]) -> dict:
    """The successful record of least mean cost per (workload key, target)."""
    best = {}
    for r in records:
        c = r.mean_cost
        if c is None:
            continue
        k = (r.workload_key, r.target)
        if k not in best or c < best[k].mean_cost:
            best[k] = r
    return best
