"""The DAG archive (proto-docs/dag-format.md, binary form): a workload's whole tensor list as
one table of nodes, each referring only to earlier ones by id, so that shared nodes stay
shared. DagWriter appends nodes and returns their ids; the caller emits operands before the
nodes that use them. The archive is format version 1, or version 2 when a compute names
layout-free placeholders (as measurerd's own writer does).
"""

import struct
from typing import List, Sequence, Tuple, Union

DTYPES = {"bool": 0, "int32": 1, "int64": 2, "float32": 3, "float64": 4, "int8": 5, "uint8": 6,
          "int16": 7, "uint16": 8, "uint32": 9}
BINARY_OPS = {"+": 0, "-": 1, "*": 2, "/": 3, "floordiv": 4, "floormod": 5, "min": 6, "max": 7,
              "==": 8, "!=": 9, "<": 10, "<=": 11, ">": 12, ">=": 13, "&&": 14, "||": 15,
              "%": 16}
CALL_OPS = {"exp": 0, "log": 1, "sqrt": 2, "tanh": 3, "sigmoid": 4, "fabs": 5, "pow": 6,
            "if_then_else": 7, "likely": 8, "erf": 9, "floor": 10, "ceil": 11, "trunc": 12,
            "round": 13, "rsqrt": 14, "sin": 15, "cos": 16, "exp2": 17, "log2": 18, "log10": 19,
            "isnan": 20, "bitwise_and": 21, "bitwise_or": 22, "bitwise_xor": 23,
            "bitwise_not": 24, "shift_left": 25, "shift_right": 26}
REDUCE_OPS = {"sum": 0, "max": 1, "min": 2, "prod": 3}

_PLACEHOLDER, _COMPUTE, _INT, _FLOAT, _VAR, _BINARY, _NOT, _SELECT, _CAST, _CALL, _READ, \
    _REDUCE = range(12)

IterVar = Tuple[int, int, int]  # (var id, min, extent)


def _varint(v: int) -> bytes:
    if v < 0:
        raise ValueError("a varint is unsigned")
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _string(s: str) -> bytes:
    b = s.encode()
    return _varint(len(b)) + b


class DagWriter:
    def __init__(self):
        # A compute node is kept as (its version 1 bytes, its layout-free placeholder ids): the
        # archive's version, known at the end, decides whether the ids are written.
        self._nodes: List[Union[bytes, Tuple[bytes, Tuple[int, ...]]]] = []

    def _add(self, kind: int, *fields: bytes) -> int:
        self._nodes.append(bytes([kind]) + b"".join(fields))
        return len(self._nodes) - 1

    @staticmethod
    def _dtype(d: str) -> bytes:
        if d not in DTYPES:
            raise ValueError("dtype %s is not one of %s" % (d, ", ".join(DTYPES)))
        return bytes([DTYPES[d]])

    @staticmethod
    def _ids(ids: Sequence[int]) -> bytes:
        return _varint(len(ids)) + b"".join(_varint(i) for i in ids)

    @staticmethod
    def _axis(axis: Sequence[IterVar]) -> bytes:
        return _varint(len(axis)) + b"".join(_varint(v) + struct.pack("<qq", lo, ext)
                                             for v, lo, ext in axis)

    def placeholder(self, name: str, dtype: str, shape: Sequence[int]) -> int:
        return self._add(_PLACEHOLDER, _string(name), self._dtype(dtype),
                         _varint(len(shape)) + b"".join(struct.pack("<q", d) for d in shape))

    def compute(self, name: str, tag: str, dtype: str, axis: Sequence[IterVar], body: int,
                layout_free: Sequence[int] = ()) -> int:
        """`layout_free`: ids of placeholders (added earlier) that TVM's layout rewrite may
        re-lay out for this op (its ``layout_free_placeholders`` attribute)."""
        node = bytes([_COMPUTE]) + b"".join((_string(name), _string(tag), self._dtype(dtype),
                                              self._axis(axis), _varint(body)))
        self._nodes.append((node, tuple(layout_free)))
        return len(self._nodes) - 1

    def int_imm(self, dtype: str, value: int) -> int:
        return self._add(_INT, self._dtype(dtype), struct.pack("<q", value))

    def float_imm(self, dtype: str, value: float) -> int:
        return self._add(_FLOAT, self._dtype(dtype), struct.pack("<d", value))

    def var(self, name: str, dtype: str) -> int:
        return self._add(_VAR, _string(name), self._dtype(dtype))

    def binary(self, dtype: str, op: str, a: int, b: int) -> int:
        return self._add(_BINARY, self._dtype(dtype), bytes([BINARY_OPS[op]]), self._ids([a, b]))

    def not_(self, a: int) -> int:
        return self._add(_NOT, self._dtype("bool"), self._ids([a]))

    def select(self, dtype: str, cond: int, then: int, other: int) -> int:
        return self._add(_SELECT, self._dtype(dtype), self._ids([cond, then, other]))

    def cast(self, dtype: str, a: int) -> int:
        return self._add(_CAST, self._dtype(dtype), self._ids([a]))

    def call(self, dtype: str, op: str, args: Sequence[int]) -> int:
        return self._add(_CALL, self._dtype(dtype), bytes([CALL_OPS[op]]), self._ids(args))

    def tensor_read(self, dtype: str, op: int, indices: Sequence[int]) -> int:
        return self._add(_READ, self._dtype(dtype), _varint(op), self._ids(indices))

    def reduce(self, dtype: str, op: str, axis: Sequence[IterVar], operands: Sequence[int]) -> int:
        return self._add(_REDUCE, self._dtype(dtype), bytes([REDUCE_OPS[op]]), self._axis(axis),
                         self._ids(operands))

    def archive(self, tensors: Sequence[int]) -> bytes:
        """The archive of every node added, with `tensors` (inputs, then outputs) as its list."""
        version = 2 if any(isinstance(n, tuple) and n[1] for n in self._nodes) else 1

        def node_bytes(n):
            if not isinstance(n, tuple):
                return n
            return n[0] + (self._ids(n[1]) if version == 2 else b"")
        return (b"MRDDAG" + struct.pack("<H", version) + _varint(len(self._nodes))
                + b"".join(node_bytes(n) for n in self._nodes) + self._ids(tensors))


class DagJsonWriter:
    """DagWriter's twin for the archive's JSON form (proto-docs/dag-format.md), what task files
    hold: the same methods and ids; archive() returns the JSON object (a dict)."""

    def __init__(self):
        self._nodes: List[dict] = []

    def _add(self, kind: str, **fields) -> int:
        node = {"id": len(self._nodes), "kind": kind}
        node.update(fields)
        self._nodes.append(node)
        return node["id"]

    @staticmethod
    def _dtype(d: str) -> str:
        if d not in DTYPES:
            raise ValueError("dtype %s is not one of %s" % (d, ", ".join(DTYPES)))
        return d

    @staticmethod
    def _axis(axis: Sequence[IterVar]) -> List[dict]:
        return [{"var": v, "min": lo, "extent": ext} for v, lo, ext in axis]

    def placeholder(self, name: str, dtype: str, shape: Sequence[int]) -> int:
        return self._add("placeholder", name=name, dtype=self._dtype(dtype), shape=list(shape))

    def compute(self, name: str, tag: str, dtype: str, axis: Sequence[IterVar], body: int,
                layout_free: Sequence[int] = ()) -> int:
        return self._add("compute", name=name, tag=tag, dtype=self._dtype(dtype),
                         axis=self._axis(axis), body=body, layout_free=list(layout_free))

    def int_imm(self, dtype: str, value: int) -> int:
        return self._add("int_imm", dtype=self._dtype(dtype), value=int(value))

    def float_imm(self, dtype: str, value: float) -> int:
        return self._add("float_imm", dtype=self._dtype(dtype), value=float(value))

    def var(self, name: str, dtype: str) -> int:
        return self._add("var", name=name, dtype=self._dtype(dtype))

    def binary(self, dtype: str, op: str, a: int, b: int) -> int:
        if op not in BINARY_OPS:
            raise ValueError("binary operator %s" % op)
        return self._add("binary", dtype=self._dtype(dtype), op=op, operands=[a, b])

    def not_(self, a: int) -> int:
        return self._add("not", dtype="bool", operands=[a])

    def select(self, dtype: str, cond: int, then: int, other: int) -> int:
        return self._add("select", dtype=self._dtype(dtype), operands=[cond, then, other])

    def cast(self, dtype: str, a: int) -> int:
        return self._add("cast", dtype=self._dtype(dtype), operands=[a])

    def call(self, dtype: str, op: str, args: Sequence[int]) -> int:
        if op not in CALL_OPS:
            raise ValueError("call %s" % op)
        return self._add("call", dtype=self._dtype(dtype), op=op, operands=list(args))

    def tensor_read(self, dtype: str, op: int, indices: Sequence[int]) -> int:
        return self._add("tensor_read", dtype=self._dtype(dtype), tensor=op, operands=list(indices))

    def reduce(self, dtype: str, op: str, axis: Sequence[IterVar], operands: Sequence[int]) -> int:
        if op not in REDUCE_OPS:
            raise ValueError("reducer %s" % op)
        return self._add("reduce", dtype=self._dtype(dtype), op=op, axis=self._axis(axis),
                         operands=list(operands))

    def archive(self, tensors: Sequence[int]) -> dict:
        """The archive of every node added, with `tensors` (inputs, then outputs) as its list:
        version 2 when a compute names layout-free placeholders, else 1 (without the field)."""
        version = 2 if any(n.get("layout_free") for n in self._nodes) else 1
        nodes = [n if version == 2 or n["kind"] != "compute"
                 else {k: v for k, v in n.items() if k != "layout_free"} for n in self._nodes]
        return {"format": "measurerd-dag", "version": version, "nodes": nodes,
                "tensors": list(tensors)}
