"""auto_scheduler's ProgramBuilder/ProgramRunner backed by measurerd.

measurerd builds and times a candidate in one job, so the pair is:

- ``Builder``: a pass-through. It builds nothing and hands every MeasureInput on to the runner
  with an empty, successful BuildResult. Its one setting is the batch size: TVM's
  ProgramMeasurer measures in batches of twice the builder's ``n_parallel``, and a large batch
  lets measurerd keep all its workers busy.
- ``Runner``: sends each MeasureInput's workload key, target, hardware parameters and
  transform steps (the state's steps, as a record line holds them) to measurerd, one request
  per task, and returns TVM MeasureResults with TVM's error numbers (measurerd's
  MeasureErrorNo are TVM's).

TVM 0.14 has no Python-implementable ProgramBuilder or ProgramRunner: its builders and
runners are C++ objects that call a registered global function. So the Builder is a
LocalBuilder node whose build function name is "measurerd", and the Runner an RPCRunner node
whose device key is "measurerd:<n>" (its host field holds the socket path). Constructing
either wraps TVM's ``auto_scheduler.local_builder.build`` and ``auto_scheduler.rpc_runner.run``
with functions that handle those names here and pass every other builder and runner on to
TVM's own, unchanged: LocalBuilder, LocalRunner and RPCRunner keep working in the same process.

Workloads: a TVM workload registered by function name (``auto_scheduler.register_workload(
"NAME")``) whose NAME is one of measurerd's function workloads (``measurer workloads``) goes by
name, and measurerd's workers rebuild it from their registry: it must take the same arguments
and compute the same stages with the same iterators, e.g. ``matmul(N, L, M, dtype)``. Any other
workload (a TVM-only function, one registered from tensors) goes inline, as its ComputeDAG's
tensors in measurerd's DAG archive (measurerd.tvm.dag); one whose DAG uses what measurerd's IR
lacks raises UnsupportedWorkload naming the workload and the construct.
"""

import itertools
import json
import sys
import threading
import warnings
from collections import OrderedDict
from typing import List, Optional

import tvm
from tvm import auto_scheduler
from tvm.auto_scheduler import _ffi_api
from tvm.auto_scheduler.measure import MAX_FLOAT, BuildResult, ProgramBuilder, ProgramRunner
from tvm.auto_scheduler.measure import MeasureResult as TvmMeasureResult

from ..client import Client
from ..errors import MeasurerdError
from ..task import FunctionWorkload, HardwareParams, Task, TensorWorkload
from ..wire import MeasureOptions, MeasureResult
from .dag import UnsupportedExpression, dag_archive

_MARK = "measurerd"
_BUILD_FUNC = "auto_scheduler.local_builder.build"
_RUN_FUNC = "auto_scheduler.rpc_runner.run"
#: The target kinds measurerd measures (it generates C for the host CPU).
CPU_TARGET_KINDS = ("llvm", "c")


class UnsupportedWorkload(MeasurerdError, ValueError):
    """A TVM workload measurerd cannot rebuild (not a function workload it knows)."""


class UnsupportedTarget(MeasurerdError, ValueError):
    """A TVM target measurerd does not measure (anything but the host CPU)."""


_runners = {}  # device key -> _RunnerState
_ids = itertools.count(1)
_install_lock = threading.Lock()
_installed = False


def _install() -> None:
    """Wraps TVM's builder and runner functions once; others' builders and runners pass on."""
    global _installed
    with _install_lock:
        if _installed:
            return
        tvm_build = tvm.get_global_func(_BUILD_FUNC)
        tvm_run = tvm.get_global_func(_RUN_FUNC)

        def build(inputs, timeout, n_parallel, build_func="default", verbose=1):
            if build_func != _MARK:
                return tvm_build(inputs, timeout, n_parallel, build_func, verbose)
            return [BuildResult(None, [], 0, None, 0.0) for _ in inputs]

        def run(inputs, build_results, key, host, port, *rest):
            state = _runners.get(str(key))
            if state is None:
                return tvm_run(inputs, build_results, key, host, port, *rest)
            return state.run(inputs, build_results)

        tvm.register_func(_BUILD_FUNC, build, override=True)
        tvm.register_func(_RUN_FUNC, run, override=True)
        _installed = True


class Builder(ProgramBuilder):
    """The pass-through builder to pair with Runner: measurerd builds and times in one job.
    TVM measures in batches of `batch_size` inputs (rounded up to even)."""

    def __init__(self, batch_size: int = 64):
        _install()
        n_parallel = max(1, (int(batch_size) + 1) // 2)
        self.__init_handle_by_constructor__(_ffi_api.LocalBuilder, 15, n_parallel, _MARK)


class _RunnerState:
    def __init__(self, socket, options: MeasureOptions, verbose: int, inline: bool):
        self.client = Client(socket, client_name="measurerd.tvm")
        self.options = options
        self.verbose = verbose
        self.inline = inline
        self.known = None
        self.workloads = {}  # TVM workload key -> measurerd workload
        self.warned_build = False

    def known_workloads(self) -> List[str]:
        if self.known is None:
            self.known = self.client.workloads()
        return self.known

    def task_of(self, tvm_task) -> Task:
        key = str(tvm_task.workload_key)
        workload = self.workloads.get(key)
        if workload is None:
            workload = self.workloads[key] = self._workload_of(key, tvm_task)
        kind = tvm_task.target.kind.name
        if kind not in CPU_TARGET_KINDS:
            raise UnsupportedTarget(
                "target %s of workload %s: measurerd measures the host CPU only (target kinds "
                "%s)" % (str(tvm_task.target).strip(), key, ", ".join(CPU_TARGET_KINDS)))
        hw = tvm_task.hardware_params
        return Task(workload, str(tvm_task.target).strip(),
                    HardwareParams(int(hw.num_cores), int(hw.vector_unit_bytes),
                                   int(hw.cache_line_bytes)),
                    int(tvm_task.layout_rewrite_option))

    def _workload_of(self, key: str, tvm_task):
        """measurerd's function workload of the same name, else the task's DAG inline."""
        function = None
        if not _is_dag_key(key):
            try:
                function = FunctionWorkload.from_key(key)
            except ValueError:
                pass
        if function is not None and function.name in self.known_workloads():
            return function
        if function is not None:
            why = "measurerd has no function workload \"%s\"" % function.name
        elif _is_dag_key(key):
            why = ("it is a tensor workload (registered from a ComputeDAG or tensors; its key "
                   "is the DAG's hash)")
        else:
            why = "its key is not a function workload's"
        how = ("register the TVM workload with auto_scheduler.register_workload(\"NAME\") under "
               "one of measurerd's function workloads (%s; `measurer workloads` lists their "
               "arguments) with the same arguments and the same computation"
               % ", ".join(self.known_workloads()))
        if not self.inline:
            raise UnsupportedWorkload("workload %s cannot be measured by measurerd: %s, and "
                                      "this Runner sends no DAG inline (inline=False); %s"
                                      % (key, why, how))
        try:
            return TensorWorkload(key, dag_archive(tvm_task.compute_dag.tensors))
        except UnsupportedExpression as e:
            raise UnsupportedWorkload("workload %s cannot be measured by measurerd: %s, and its "
                                      "ComputeDAG cannot be sent inline: %s is not in "
                                      "measurerd's IR. Otherwise, %s" % (key, why, e, how)) from None

    def run(self, inputs, build_results) -> List[TvmMeasureResult]:
        if not self.warned_build and any(str(b.filename) for b in build_results):
            self.warned_build = True
            warnings.warn("measurerd.tvm.Runner measures from the steps and ignores built "
                          "programs: pair it with measurerd.tvm.Builder() to skip TVM's builds",
                          stacklevel=2)
        groups = OrderedDict()
        for i, inp in enumerate(inputs):
            t = inp.task
            hw = t.hardware_params
            k = (str(t.workload_key), str(t.target), int(hw.num_cores),
                 int(hw.vector_unit_bytes), int(hw.cache_line_bytes))
            groups.setdefault(k, (t, []))[1].append(i)
        out: List[Optional[TvmMeasureResult]] = [None] * len(inputs)
        for tvm_task, indices in groups.values():
            task = self.task_of(tvm_task)
            states = [steps_of(inputs[i]) for i in indices]
            results = self.client.measure(task, states, self.options,
                                          on_result=self._progress)
            for i, r in zip(indices, results):
                out[i] = to_tvm_result(r)
        return out

    def _progress(self, index: int, r: MeasureResult) -> None:
        if self.verbose >= 1:
            mark = {0: "*", 6: "*T", 7: "*T"}.get(int(r.error_no), "*E")
            print(mark, end="", flush=True)
            if self.verbose >= 2 and not r.ok:
                print("\n%s: %s" % (r.error_name, r.error_msg), file=sys.stderr)


class Runner(ProgramRunner):
    """A ProgramRunner measuring through measurerd, with LocalRunner's options and meanings
    (`timeout` is the run timeout), plus `build_timeout` (LocalBuilder's timeout) and
    `check_correctness` (compare with measurerd's reference interpreter: WRONG_ANSWER) and
    `skip_hopeless` / `skip_hopeless_factor` (off by default: a state whose warm-up call alone
    is slower than the factor times the best mean cost so far is not timed further; its
    MeasureResult has error_no 0, the warm-up's time as its cost and an error_msg starting
    "timing skipped").

    A workload registered by a function name measurerd knows goes by name; any other (a
    TVM-only function, a workload registered from tensors) goes as its ComputeDAG, inline,
    unless `inline` is False.

    Connects at once (ConnectError, PeerNotAllowed when measurerd is unreachable or refuses).
    During tuning, a workload measurerd can neither rebuild by name nor take inline raises
    UnsupportedWorkload, a target it does not measure UnsupportedTarget, and a daemon that goes
    away DaemonGone: each stops the tuning with that error. Measurement failures are
    MeasureResults with TVM's error_no."""

    def __init__(self, socket: Optional[str] = None, timeout: float = 10, number: int = 3,
                 repeat: int = 1, min_repeat_ms: int = 100, cooldown_interval: float = 0.0,
                 enable_cpu_cache_flush: bool = False, build_timeout: float = 15,
                 check_correctness: bool = False, verbose: int = 1, inline: bool = True,
                 skip_hopeless: bool = False, skip_hopeless_factor: float = 10.0):
        _install()
        if enable_cpu_cache_flush:  # as LocalRunner
            number, min_repeat_ms = 1, 0
        options = MeasureOptions(number=number, repeat=repeat, min_repeat_ms=min_repeat_ms,
                                 cooldown_interval=cooldown_interval,
                                 enable_cpu_cache_flush=enable_cpu_cache_flush,
                                 build_timeout=build_timeout, run_timeout=timeout,
                                 check_correctness=check_correctness,
                                 skip_hopeless=skip_hopeless,
                                 skip_hopeless_factor=skip_hopeless_factor)
        state = _RunnerState(socket, options, verbose, inline)
        key = "%s:%d" % (_MARK, next(_ids))
        _runners[key] = state
        self.__init_handle_by_constructor__(
            _ffi_api.RPCRunner, key, state.client.socket_path, 0, 1, 1, int(timeout), number,
            repeat, min_repeat_ms, float(cooldown_interval), bool(enable_cpu_cache_flush), 0)
        self.device_key = key
        self._state = state

    @property
    def client(self) -> Client:
        """The measurerd connection of this runner."""
        return self._state.client

    def known_workloads(self) -> List[str]:
        """measurerd's function workloads (asked once, then remembered)."""
        return self._state.known_workloads()

    def check_task(self, task) -> None:
        """Raises UnsupportedWorkload or UnsupportedTarget now, before a search, for a
        SearchTask this runner would refuse during tuning."""
        self._state.task_of(task)

    def measure(self, inputs) -> List[TvmMeasureResult]:
        """Measures MeasureInputs directly (no search): TVM MeasureResults in input order."""
        return self._state.run(list(inputs), [])


def _is_dag_key(key: str) -> bool:
    """TVM's key of a tensor workload: ["<md5 of the DAG>", shapes...]."""
    try:
        k = json.loads(key)
    except ValueError:
        return False
    return (isinstance(k, list) and bool(k) and isinstance(k[0], str) and len(k[0]) == 32
            and all(c in "0123456789abcdef" for c in k[0]))


def steps_of(inp) -> list:
    """The transform steps of a MeasureInput's state, as its record line holds them."""
    return json.loads(_ffi_api.SerializeMeasureInput(inp))[1][1]


def to_tvm_result(r: MeasureResult) -> TvmMeasureResult:
    costs = list(r.costs) if r.ok and r.costs else [MAX_FLOAT]
    return TvmMeasureResult(costs, int(r.error_no), r.error_msg, r.all_cost, r.timestamp)


def measure_inputs(inputs, runner: Optional[Runner] = None, **runner_options):
    """Measures MeasureInputs through measurerd (a new Runner with `runner_options` when none
    is given) and returns TVM MeasureResults in input order."""
    return (runner or Runner(**runner_options)).measure(inputs)


def tuning_options(num_measure_trials: int, log_file: Optional[str] = None,
                   socket: Optional[str] = None, batch_size: int = 64, runner_options=None,
                   **tuning_kwargs):
    """auto_scheduler.TuningOptions with measurerd's Builder and Runner, and a RecordToFile
    callback when `log_file` is given (its records load with auto_scheduler.load_records)."""
    callbacks = list(tuning_kwargs.pop("measure_callbacks", []) or [])
    if log_file:
        callbacks.append(auto_scheduler.RecordToFile(log_file))
    return auto_scheduler.TuningOptions(
        num_measure_trials=num_measure_trials, builder=Builder(batch_size),
        runner=Runner(socket, **(runner_options or {})), measure_callbacks=callbacks,
        **tuning_kwargs)
