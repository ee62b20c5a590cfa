"""A TVM ComputeDAG's tensors as measurerd's DAG archive, so that a workload measurerd's
registry does not have (a TVM-only function, or one registered from tensors) is sent inline.

Covers what measurerd's IR has: placeholders and single-output compute ops of bool, int8,
uint8, int16, uint16, int32, uint32, int64, float32 and float64; arithmetic (truncmod
included), comparisons, logic, select, cast, exp, log, sqrt, tanh, sigmoid, fabs, pow, erf,
floor, ceil, trunc, round, rsqrt, sin, cos, exp2, log2, log10, isnan, bitwise and/or/xor/not,
shifts, if_then_else, likely, tensor reads, and sum/prod/max/min reductions (with a
condition). QNN's fixed-point multiply (``tir.q_multiply_shift`` and its per-axis form, what
TVM's requantize becomes) goes as the integer arithmetic TVM's own legalization rule expands it
to when it builds for a CPU. A compute's ``layout_free_placeholders`` attribute (topi's dense, batch_matmul,
matmul) goes along, so that measurerd re-lays those inputs out as TVM's layout rewrite does;
axis bounds that TVM's simplifier folds to constants (an adaptive pool's) go as those
constants. Anything else raises UnsupportedExpression naming it.
"""

from typing import Dict

import tvm
from tvm import te, tir

from ..dag import DTYPES, DagJsonWriter, DagWriter


class UnsupportedExpression(ValueError):
    """A TVM construct measurerd's DAG archive cannot express."""


_BINARY = [(tir.Add, "+"), (tir.Sub, "-"), (tir.Mul, "*"), (tir.Div, "/"),
           (tir.FloorDiv, "floordiv"), (tir.FloorMod, "floormod"), (tir.Min, "min"),
           (tir.Max, "max"), (tir.EQ, "=="), (tir.NE, "!="), (tir.LT, "<"), (tir.LE, "<="),
           (tir.GT, ">"), (tir.GE, ">="), (tir.And, "&&"), (tir.Or, "||"), (tir.Mod, "%")]
_CALLS = {"tir.exp": "exp", "tir.log": "log", "tir.sqrt": "sqrt", "tir.tanh": "tanh",
          "tir.sigmoid": "sigmoid", "tir.fabs": "fabs", "tir.pow": "pow",
          "tir.if_then_else": "if_then_else", "tir.likely": "likely", "tir.erf": "erf",
          "tir.floor": "floor", "tir.ceil": "ceil", "tir.trunc": "trunc", "tir.round": "round",
          "tir.rsqrt": "rsqrt", "tir.sin": "sin", "tir.cos": "cos", "tir.exp2": "exp2",
          "tir.log2": "log2", "tir.log10": "log10", "tir.isnan": "isnan",
          "tir.bitwise_and": "bitwise_and", "tir.bitwise_or": "bitwise_or",
          "tir.bitwise_xor": "bitwise_xor", "tir.bitwise_not": "bitwise_not",
          "tir.shift_left": "shift_left", "tir.shift_right": "shift_right"}
# Calls TVM's build replaces by integer arithmetic before code generation (LowerIntrin applies
# the op's "default.FLegalize" rule on every target): they go as that arithmetic, from TVM's
# own rule, so that they mean exactly what TVM's build computes.
_LEGALIZED = ("tir.q_multiply_shift", "tir.q_multiply_shift_per_axis")


def _dtype(d) -> str:
    name = str(d)
    if name not in DTYPES:
        raise UnsupportedExpression("type %s; measurerd's types are %s" % (name, ", ".join(DTYPES)))
    return name


def _key(obj) -> int:
    return obj.handle.value  # identity: one node per TVM object


class _Translator:
    def __init__(self, writer=None):
        self.w = writer if writer is not None else DagWriter()
        self.ids: Dict[int, int] = {}
        self.keep = []  # the objects whose addresses key `ids` stay alive

    def _memo(self, obj, make):
        k = _key(obj)
        if k not in self.ids:
            self.ids[k] = make()
            self.keep.append(obj)
        return self.ids[k]

    def op(self, op) -> int:
        def make():
            if isinstance(op, te.PlaceholderOp):
                return self.w.placeholder(op.name, _dtype(op.dtype), [_int(d) for d in op.shape])
            if isinstance(op, te.ComputeOp):
                if len(op.body) != 1:
                    raise UnsupportedExpression("compute %s has %d outputs; measurerd's have one"
                                                % (op.name, len(op.body)))
                layout_free = [self.op(t.op) for t in _layout_free_placeholders(op)]
                axis = [self.iter_var(iv) for iv in op.axis]
                body = self.expr(op.body[0])
                return self.w.compute(op.name, str(op.tag), _dtype(op.output(0).dtype), axis, body,
                                      layout_free)
            raise UnsupportedExpression("operation %s is a %s; measurerd has placeholders and "
                                        "compute ops" % (op.name, type(op).__name__))
        return self._memo(op, make)

    def iter_var(self, iv):
        dom = iv.dom
        return (self.var(iv.var), _int(_simplified(dom.min)), _int(_simplified(dom.extent)))

    def var(self, v) -> int:
        return self._memo(v, lambda: self.w.var(v.name, _dtype(v.dtype)))

    def expr(self, e) -> int:
        return self._memo(e, lambda: self._expr(e))

    def _expr(self, e) -> int:
        w = self.w
        dtype = _dtype(e.dtype)
        if isinstance(e, tir.IntImm):
            return w.int_imm(dtype, int(e.value))
        if isinstance(e, tir.FloatImm):
            return w.float_imm(dtype, float(e.value))
        if isinstance(e, tir.Var):
            return self.var(e)
        for cls, name in _BINARY:
            if isinstance(e, cls):
                return w.binary(dtype, name, self.expr(e.a), self.expr(e.b))
        if isinstance(e, tir.Not):
            return w.not_(self.expr(e.a))
        if isinstance(e, tir.Select):
            return w.select(dtype, self.expr(e.condition), self.expr(e.true_value),
                            self.expr(e.false_value))
        if isinstance(e, tir.Cast):
            return w.cast(dtype, self.expr(e.value))
        if isinstance(e, tir.Call):
            if isinstance(e.op, tvm.ir.Op) and str(e.op.name) in _LEGALIZED:
                return self.expr(_legalized(e))
            name = _CALLS.get(str(e.op.name)) if isinstance(e.op, tvm.ir.Op) else None
            if name is None:
                raise UnsupportedExpression("call %s" % e.op)
            return w.call(dtype, name, [self.expr(a) for a in e.args])
        if isinstance(e, tir.ProducerLoad):
            producer = e.producer
            if not isinstance(producer, te.Tensor) or producer.value_index != 0:
                raise UnsupportedExpression("read of %s" % producer)
            op = self.op(producer.op)
            return w.tensor_read(dtype, op, [self.expr(i) for i in e.indices])
        if isinstance(e, tir.Reduce):
            return self._reduce(e, dtype)
        raise UnsupportedExpression("expression %s (%s)" % (type(e).__name__, e))

    def _reduce(self, e, dtype: str) -> int:
        if len(e.source) != 1 or int(e.value_index) != 0 or e.init:
            raise UnsupportedExpression("a reduction of several values or with an init")
        c = e.combiner
        op = _reducer_op(c, dtype)
        if op is None:
            raise UnsupportedExpression("reducer %s; measurerd reduces with sum, prod, max or min "
                                        "from their identities" % c)
        axis = [self.iter_var(iv) for iv in e.axis]
        operands = [self.expr(e.source[0])]
        cond = e.condition
        if not (isinstance(cond, tir.IntImm) and int(cond.value) == 1):
            operands.append(self.expr(cond))
        return self.w.reduce(dtype, op, axis, operands)


_REDUCERS = [(tir.Add, "sum"), (tir.Mul, "prod"), (tir.Max, "max"), (tir.Min, "min")]


def _reducer_op(combiner, dtype):
    """The name of a combiner that is x + y, x * y, max(x, y) or min(x, y) starting from that
    operator's identity (0, 1, the lowest value, the highest: te.sum, topi's prod, te.max,
    te.min), else None."""
    if len(combiner.lhs) != 1 or len(combiner.identity_element) != 1:
        return None
    x, y, result = combiner.lhs[0], combiner.rhs[0], combiner.result[0]
    op = next((n for cls, n in _REDUCERS if isinstance(result, cls)), None)
    if op is None or {_key(result.a), _key(result.b)} != {_key(x), _key(y)}:
        return None
    identity = {"sum": 0, "prod": 1, "max": tvm.te.min_value(dtype).value,
                "min": tvm.te.max_value(dtype).value}[op]
    given = combiner.identity_element[0]
    if not isinstance(given, (tir.IntImm, tir.FloatImm)) or given.value != identity:
        return None
    return op


def _legalized(call):
    """`call` as TVM's build rewrites it before code generation (its "default.FLegalize"
    rule). TVM's rule for q_multiply_shift needs a constant multiplier and shift; where TVM's
    build would fail, so does this, naming the call."""
    rule = call.op.get_attr("default.FLegalize")
    try:
        return rule(call)
    except tvm.TVMError as err:
        lines = str(err).strip().splitlines()
        reason = lines[-1] if lines else "no reason given"
        raise UnsupportedExpression("call %s: TVM's own lowering rule for it refuses it, so TVM's "
                                    "build would fail too (%s)" % (call, reason)) from None


def _layout_free_placeholders(op):
    """The placeholders the op's ``layout_free_placeholders`` attribute names (set by topi's
    dense, batch_matmul and matmul): with layout_rewrite_option 1, TVM re-lays them out."""
    attrs = op.attrs
    if attrs is None or "layout_free_placeholders" not in attrs:
        return []
    out = []
    for t in attrs["layout_free_placeholders"]:
        if not isinstance(t.op, te.PlaceholderOp):
            raise UnsupportedExpression("layout-free input %s of %s is not a placeholder"
                                        % (t.op.name, op.name))
        out.append(t)
    return out


def _simplified(v):
    """An axis bound as TVM's simplifier folds it: the reduction extent of an adaptive (and
    global) pool is written as a difference of index expressions that is constant."""
    if isinstance(v, (int, tir.IntImm)):
        return v
    return tvm.arith.Analyzer().simplify(v)


def _int(v) -> int:
    if isinstance(v, int):
        return v
    if isinstance(v, tir.IntImm):
        return int(v.value)
    raise UnsupportedExpression("a symbolic extent %s; measurerd's shapes are constants" % v)


def dag_archive(tensors) -> bytes:
    """The archive of a TVM tensor list (a ComputeDAG's ``tensors``: inputs, then outputs)."""
    return _archive(tensors, _Translator())


def dag_json(tensors) -> dict:
    """The same archive in its JSON form (a dict), as a task file's ``{"dag": ...}`` holds it."""
    return _archive(tensors, _Translator(DagJsonWriter()))


def _archive(tensors, t: _Translator):
    ids = []
    for tensor in tensors:
        if tensor.value_index != 0:
            raise UnsupportedExpression("output %d of %s" % (tensor.value_index, tensor.op.name))
        ids.append(t.op(tensor.op))
    return t.w.archive(ids)
