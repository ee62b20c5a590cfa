"""MetaSchedule is not supported by measurerd, and these classes say so.

MetaSchedule (``tvm.meta_schedule.tune_tir``) measures TIR: each candidate is an IRModule of
scheduled PrimFuncs (a schedule trace applied to TensorIR), built by a Builder into a module
and timed by a Runner. measurerd's protocol carries a TE workload (a registered function by
name, or a tensor DAG archive) and auto_scheduler transform steps; its workers lower that to
their own loop IR and generate C. A TensorIR module or a MetaSchedule trace has no form on the
wire, and translating TensorIR schedules into auto_scheduler steps is not possible in general
(MetaSchedule's blocks, tensorization and layout transforms have no step). So there is no
MetaSchedule Builder/Runner pair: constructing one raises MetaScheduleNotSupported, naming
what to use instead, rather than measuring something else.

Use the auto_scheduler adapters (``measurerd.tvm.Builder`` and ``measurerd.tvm.Runner``) with
``auto_scheduler.TuningOptions``.
"""


class MetaScheduleNotSupported(NotImplementedError):
    """MetaSchedule candidates (TensorIR modules and traces) cannot be expressed in measurerd's
    protocol; see the module's documentation."""


_WHY = ("measurerd cannot measure MetaSchedule candidates: they are TensorIR modules and "
        "schedule traces, and measurerd's protocol carries TE workloads with auto_scheduler "
        "transform steps. Tune with auto_scheduler instead: "
        "auto_scheduler.TuningOptions(builder=measurerd.tvm.Builder(), "
        "runner=measurerd.tvm.Runner())")


class Builder:
    """Stands where a MetaSchedule Builder would; raises MetaScheduleNotSupported."""

    def __init__(self, *args, **kwargs):
        raise MetaScheduleNotSupported(_WHY)


class Runner:
    """Stands where a MetaSchedule Runner would; raises MetaScheduleNotSupported."""

    def __init__(self, *args, **kwargs):
        raise MetaScheduleNotSupported(_WHY)
