// The workload functions every measurerd process knows, each building the same tensor DAG
// as TVM/topi (op and axis names, expression structure, stage order), with TVM's argument
// lists. They are registered under the function's name in Registry::global().
//
// Argument lists (all integers unless noted; dtype is "float32", "float64", "int32", "int64"):
//   matmul(N, L, M, dtype)            C[N, M] = sum_k A[N, L] * B[L, M]
//   matmul_add(N, L, M, dtype)        out = matmul(A, B) + C
//   matmul_relu_relu(N, L, M, dtype)  E = relu(relu(matmul(A, B))), relu(x) = max(x, 0)
//   batch_matmul(B, M, N, K)          topi.nn.batch_matmul, X[B, M, K] x Y[B, N, K]^T, float32
//   dense_bias_relu(N, K, M)          topi.nn.dense (T_matmul_NT) + bias_add + topi relu, float32
//   conv2d_nchw(N, CI, H, W, CO, KH, KW, stride, padding)
//                                     topi.nn.conv2d_nchw, dilation 1, zero padding, float32
//   depthwise_conv2d_nchw(N, C, H, W, K, stride, padding)
//                                     topi.nn.depthwise_conv2d_nchw with channel multiplier 1,
//                                     a K x K kernel of shape [C, 1, K, K], dilation 1, float32
//   softmax(M, N)                     topi.nn.softmax over axis 1, float32
//   layer_norm(N, D)                  normalisation over the last axis of A[N, D] with
//                                     gamma[D] and beta[D], epsilon 1e-5, float32 (see below)
//   max_pool2d(N, C, H, W, kernel, stride, padding)
//                                     topi.nn.pool2d "max", NCHW, square kernel, dilation 1,
//                                     padding with the lowest float32 value, float32
//
// layer_norm follows topi.nn.layer_norm's formula (mean = E[x], var = E[x^2] - E[x]^2,
// (x - mean) / sqrt(var + eps) * gamma + beta), but since an op here has a single output,
// topi's one tuple reduction is two reductions: T_layer_norm_sum and T_layer_norm_sqsum.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/ir/operation.h"
#include "common/registry/workload.h"

namespace mrd::registry {

/// (name, builder) of every built-in workload, in a fixed order.
std::vector<std::pair<std::string, Builder>> builtin_workloads();

namespace builtin {

std::vector<ir::Tensor> matmul(int64_t n, int64_t l, int64_t m, ir::DType dtype);
std::vector<ir::Tensor> matmul_add(int64_t n, int64_t l, int64_t m, ir::DType dtype);
std::vector<ir::Tensor> matmul_relu_relu(int64_t n, int64_t l, int64_t m, ir::DType dtype);
std::vector<ir::Tensor> batch_matmul(int64_t b, int64_t m, int64_t n, int64_t k);
std::vector<ir::Tensor> dense_bias_relu(int64_t n, int64_t k, int64_t m);
std::vector<ir::Tensor> conv2d_nchw(int64_t n, int64_t ci, int64_t h, int64_t w, int64_t co,
                                    int64_t kh, int64_t kw, int64_t stride, int64_t padding);
std::vector<ir::Tensor> depthwise_conv2d_nchw(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k,
                                              int64_t stride, int64_t padding);
std::vector<ir::Tensor> softmax(int64_t m, int64_t n);
std::vector<ir::Tensor> layer_norm(int64_t n, int64_t d);
std::vector<ir::Tensor> max_pool2d(int64_t n, int64_t c, int64_t h, int64_t w, int64_t kernel,
                                   int64_t stride, int64_t padding);

}  // namespace builtin
}  // namespace mrd::registry
