"""TVM definitions of measurerd's built-in workloads (common/registry/builtin_workloads.h).

Importing this module registers every built-in workload with auto_scheduler under the same
name and argument list as measurerd, building the same tensor DAG (op and axis names,
expression structure, stage order): topi where measurerd follows topi, plain te.compute
otherwise. Needs TVM on sys.path (see ../../../shared/tvm/README.md).
"""

import tvm
from tvm import auto_scheduler, te, topi


@auto_scheduler.register_workload
def matmul(N, L, M, dtype):
    A = te.placeholder((N, L), name="A", dtype=dtype)
    B = te.placeholder((L, M), name="B", dtype=dtype)
    k = te.reduce_axis((0, L), name="k")
    C = te.compute((N, M), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return [A, B, C]


@auto_scheduler.register_workload
def matmul_add(N, L, M, dtype):
    A = te.placeholder((N, L), name="A", dtype=dtype)
    B = te.placeholder((L, M), name="B", dtype=dtype)
    C = te.placeholder((N, M), name="C", dtype=dtype)
    k = te.reduce_axis((0, L), name="k")
    mm = te.compute((N, M), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="matmul")
    out = te.compute((N, M), lambda i, j: mm[i, j] + C[i, j], name="out")
    return [A, B, C, out]


@auto_scheduler.register_workload
def matmul_relu_relu(N, L, M, dtype):
    A = te.placeholder((N, L), name="A", dtype=dtype)
    B = te.placeholder((L, M), name="B", dtype=dtype)
    k = te.reduce_axis((0, L), name="k")
    C = te.compute((N, M), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    D = te.compute((N, M), lambda i, j: te.max(C[i, j], tvm.tir.const(0, dtype)), name="D")
    E = te.compute((N, M), lambda i, j: te.max(D[i, j], tvm.tir.const(0, dtype)), name="E")
    return [A, B, E]


@auto_scheduler.register_workload
def batch_matmul(B, M, N, K):
    X = te.placeholder((B, M, K), name="X")
    Y = te.placeholder((B, N, K), name="Y")
    out = topi.nn.batch_matmul(X, Y)  # T_batch_matmul_NT, Y marked layout-free
    return [X, Y, out]


@auto_scheduler.register_workload
def dense_bias_relu(N, K, M):
    A = te.placeholder((N, K), name="A")
    W = te.placeholder((M, K), name="W")
    bias = te.placeholder((M,), name="bias")
    d = topi.nn.dense(A, W)  # T_matmul_NT, W marked layout-free
    b = te.compute((N, M), lambda i, j: d[i, j] + bias[j], name="bias_add")
    r = topi.nn.relu(b)  # "compute", axes i0, i1
    return [A, W, bias, r]


@auto_scheduler.register_workload
def conv2d_nchw(N, CI, H, W, CO, KH, KW, stride, padding):
    data = te.placeholder((N, CI, H, W), name="data")
    kernel = te.placeholder((CO, CI, KH, KW), name="kernel")
    out = topi.nn.conv2d_nchw(data, kernel, stride, padding, dilation=1, out_dtype="float32")
    return [data, kernel, out]


@auto_scheduler.register_workload
def depthwise_conv2d_nchw(N, C, H, W, K, stride, padding):
    data = te.placeholder((N, C, H, W), name="data")
    kernel = te.placeholder((C, 1, K, K), name="kernel")  # channel multiplier 1
    out = topi.nn.depthwise_conv2d_nchw(data, kernel, stride, padding, 1, out_dtype="float32")
    return [data, kernel, out]


@auto_scheduler.register_workload
def softmax(M, N):
    A = te.placeholder((M, N), name="A")
    out = topi.nn.softmax(A, axis=1)
    return [A, out]


@auto_scheduler.register_workload
def layer_norm(N, D):
    # topi.nn.layer_norm's formula with its one tuple reduction written as two reductions,
    # exactly as measurerd builds it.
    A = te.placeholder((N, D), name="A")
    gamma = te.placeholder((D,), name="gamma")
    beta = te.placeholder((D,), name="beta")
    k1 = te.reduce_axis((0, D), name="k")
    k2 = te.reduce_axis((0, D), name="k")
    s = te.compute((N,), lambda i0: te.sum(A[i0, k1], axis=k1), name="T_layer_norm_sum",
                   tag="comm_reduce")
    sq = te.compute((N,), lambda i0: te.sum(A[i0, k2] * A[i0, k2], axis=k2),
                    name="T_layer_norm_sqsum", tag="comm_reduce")
    extent = tvm.tir.const(float(D), "float32")
    eps = tvm.tir.const(1e-5, "float32")

    def norm(i0, i1):
        mean = s[i0] / extent
        var = sq[i0] / extent - mean * mean
        return (A[i0, i1] - mean) / te.sqrt(var + eps) * gamma[i1] + beta[i1]

    out = te.compute((N, D), norm, name="T_layer_norm", tag="injective")
    return [A, gamma, beta, out]


@auto_scheduler.register_workload
def max_pool2d(N, C, H, W, kernel, stride, padding):
    data = te.placeholder((N, C, H, W), name="data")
    out = topi.nn.pool2d(data, kernel=(kernel, kernel), stride=(stride, stride),
                         dilation=(1, 1), padding=(padding, padding, padding, padding),
                         pool_type="max", layout="NCHW")
    return [data, out]


# Name -> function, in the order of builtin_workloads() in builtin_workloads.cpp.
WORKLOADS = {
    f.__name__: f
    for f in (matmul, matmul_add, matmul_relu_relu, batch_matmul, dense_bias_relu, conv2d_nchw,
              depthwise_conv2d_nchw, softmax, layer_norm, max_pool2d)
}
