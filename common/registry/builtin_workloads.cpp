#include "common/registry/builtin_workloads.h"

#include <limits>

#include "common/ir/te.h"
#include "common/util/error.h"

namespace mrd::registry {

using ir::DType;
using ir::Expr;
using ir::IterVar;
using ir::Tensor;
using ir::Var;

namespace {

Expr i32(int64_t v) {
  return ir::IntImmNode::make(DType::Int32, v);
}

/// x * c with TVM's constant folding of a multiplication by one.
Expr mul_const(const Expr& x, int64_t c) {
  return c == 1 ? x : x * i32(c);
}

/// The `&&` of all conditions, folded from the left as tvm.tir.all does.
Expr all_of(const std::vector<Expr>& conds) {
  Expr acc = conds.front();
  for (size_t i = 1; i < conds.size(); ++i) acc = acc && conds[i];
  return acc;
}

/// topi's pad of the two spatial dimensions (2 and 3) of an NCHW tensor by `pad` on each
/// side, filled with `pad_value`.
Tensor pad_spatial(const Tensor& data, int64_t pad, const Expr& pad_value, std::string name,
                   std::vector<std::string> axis_names) {
  std::vector<int64_t> shape = data->shape;
  shape[2] += 2 * pad;
  shape[3] += 2 * pad;
  return ir::compute(
      shape,
      [&](const std::vector<Var>& v) -> Expr {
        if (pad == 0) return data({v[0], v[1], v[2], v[3]});
        std::vector<Expr> conds;
        std::vector<Expr> index{v[0], v[1]};
        for (int d = 2; d < 4; ++d) {
          conds.push_back(v[d] >= i32(pad));
          conds.push_back(v[d] < i32(data->shape[d] + pad));
          index.push_back(v[d] - i32(pad));
        }
        return ir::if_then_else(all_of(conds), data(index), pad_value);
      },
      std::move(name), std::move(axis_names), "injective,pad");
}

Tensor relu(const Tensor& x, std::string name, std::vector<std::string> axis_names) {
  return ir::compute(
      x->shape,
      [&](const std::vector<Var>& v) {
        return ir::max(x(std::vector<Expr>(v.begin(), v.end())), ir::const_of(x->dtype, 0));
      },
      std::move(name), std::move(axis_names), "elemwise");
}

int64_t conv_out(int64_t in, int64_t k, int64_t stride, int64_t pad, const char* what) {
  MRD_USER_CHECK(stride >= 1, what, ": stride must be at least 1, got ", stride);
  MRD_USER_CHECK(pad >= 0, what, ": padding must not be negative, got ", pad);
  MRD_USER_CHECK(k <= in + 2 * pad, what, ": kernel ", k, " is larger than the padded input ",
                 in + 2 * pad);
  return (in + 2 * pad - k) / stride + 1;
}

/// Reads a function workload's arguments against its signature, with errors that say what
/// was expected.
class ArgReader {
 public:
  ArgReader(const char* name, const char* signature, const std::vector<WorkloadArg>& args,
            size_t count)
      : name_(name), signature_(signature), args_(args) {
    if (args.size() != count) fail(str_cat(count, " arguments, got ", args.size()));
  }

  /// A positive dimension that fits int32 (TVM's index type).
  int64_t dim(size_t i) { return integer(i, 1, std::numeric_limits<int32_t>::max()); }

  int64_t integer(size_t i, int64_t lo, int64_t hi) {
    const int64_t* v = std::get_if<int64_t>(&args_[i]);
    if (!v) fail(str_cat("an integer as argument ", i + 1));
    if (*v < lo || *v > hi) {
      fail(str_cat("argument ", i + 1, " in [", lo, ", ", hi, "], got ", *v));
    }
    return *v;
  }

  DType dtype(size_t i) {
    const std::string* s = std::get_if<std::string>(&args_[i]);
    if (!s) fail(str_cat("a dtype string as argument ", i + 1));
    std::optional<DType> t = ir::parse_dtype(*s);
    if (!t || *t == DType::Bool) {
      fail(
          str_cat("argument ", i + 1, " to be float32, float64, int32 or int64, got \"", *s, "\""));
    }
    return *t;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw UserError(str_cat("workload ", name_, signature_, " expects ", what));
  }
  const char* name_;
  const char* signature_;
  const std::vector<WorkloadArg>& args_;
};

constexpr int64_t kMaxSmall = 1 << 16;  // strides, paddings, kernel sizes

}  // namespace

namespace builtin {

std::vector<Tensor> matmul(int64_t n, int64_t l, int64_t m, DType dtype) {
  Tensor a = ir::placeholder({n, l}, "A", dtype);
  Tensor b = ir::placeholder({l, m}, "B", dtype);
  IterVar k = ir::reduce_axis(0, l, "k");
  Tensor c = ir::compute({n, m}, [&](Var i, Var j) { return ir::sum(a(i, k) * b(k, j), {k}); }, "C",
                         {"i", "j"});
  return {a, b, c};
}

std::vector<Tensor> matmul_add(int64_t n, int64_t l, int64_t m, DType dtype) {
  Tensor a = ir::placeholder({n, l}, "A", dtype);
  Tensor b = ir::placeholder({l, m}, "B", dtype);
  Tensor c = ir::placeholder({n, m}, "C", dtype);
  IterVar k = ir::reduce_axis(0, l, "k");
  Tensor mm = ir::compute({n, m}, [&](Var i, Var j) { return ir::sum(a(i, k) * b(k, j), {k}); },
                          "matmul", {"i", "j"});
  Tensor out =
      ir::compute({n, m}, [&](Var i, Var j) { return mm(i, j) + c(i, j); }, "out", {"i", "j"});
  return {a, b, c, out};
}

std::vector<Tensor> matmul_relu_relu(int64_t n, int64_t l, int64_t m, DType dtype) {
  Tensor a = ir::placeholder({n, l}, "A", dtype);
  Tensor b = ir::placeholder({l, m}, "B", dtype);
  IterVar k = ir::reduce_axis(0, l, "k");
  Tensor c = ir::compute({n, m}, [&](Var i, Var j) { return ir::sum(a(i, k) * b(k, j), {k}); }, "C",
                         {"i", "j"});
  Tensor d =
      ir::compute({n, m}, [&](Var i, Var j) { return ir::max(c(i, j), ir::const_of(dtype, 0)); },
                  "D", {"i", "j"});
  Tensor e =
      ir::compute({n, m}, [&](Var i, Var j) { return ir::max(d(i, j), ir::const_of(dtype, 0)); },
                  "E", {"i", "j"});
  return {a, b, e};
}

std::vector<Tensor> batch_matmul(int64_t batch, int64_t m, int64_t n, int64_t k_dim) {
  Tensor x = ir::placeholder({batch, m, k_dim}, "X");
  Tensor y = ir::placeholder({batch, n, k_dim}, "Y");
  IterVar k = ir::reduce_axis(0, k_dim, "k");
  Tensor out = ir::compute(
      {batch, m, n},
      [&](Var b, Var i, Var j) {
        // topi broadcasts a batch of one by reading index 0.
        Expr xb = batch == 1 ? i32(0) : Expr(b);
        Expr yb = batch == 1 ? i32(0) : Expr(b);
        return ir::sum(x(xb, i, k) * y(yb, j, k), {k});
      },
      "T_batch_matmul_NT", {"b", "i", "j"}, "batch_matmul");
  out = ir::OperationNode::with_layout_free_placeholders(out.op(), {y.op()});
  return {x, y, out};
}

std::vector<Tensor> dense_bias_relu(int64_t n, int64_t k_dim, int64_t m) {
  Tensor a = ir::placeholder({n, k_dim}, "A");
  Tensor w = ir::placeholder({m, k_dim}, "W");
  Tensor bias = ir::placeholder({m}, "bias");
  IterVar k = ir::reduce_axis(0, k_dim, "k");
  Tensor d = ir::compute(
      {n, m}, [&](Var i, Var j) { return ir::sum(a(i, k) * w(j, k), {k}); }, "T_matmul_NT",
      {"i", "j"}, "dense");
  d = ir::OperationNode::with_layout_free_placeholders(d.op(), {w.op()});
  Tensor b =
      ir::compute({n, m}, [&](Var i, Var j) { return d(i, j) + bias(j); }, "bias_add", {"i", "j"});
  Tensor r = relu(b, "compute", {"i0", "i1"});
  return {a, w, bias, r};
}

std::vector<Tensor> conv2d_nchw(int64_t n, int64_t ci, int64_t h, int64_t w, int64_t co, int64_t kh,
                                int64_t kw, int64_t stride, int64_t padding) {
  int64_t oh = conv_out(h, kh, stride, padding, "conv2d_nchw");
  int64_t ow = conv_out(w, kw, stride, padding, "conv2d_nchw");
  Tensor data = ir::placeholder({n, ci, h, w}, "data");
  Tensor kernel = ir::placeholder({co, ci, kh, kw}, "kernel");
  Tensor pad_temp = pad_spatial(data, padding, ir::const_of(DType::Float32, 0), "pad_temp",
                                {"i0", "i1", "i2", "i3"});
  IterVar rc = ir::reduce_axis(0, ci, "rc");
  IterVar ry = ir::reduce_axis(0, kh, "ry");
  IterVar rx = ir::reduce_axis(0, kw, "rx");
  Tensor out = ir::compute(
      {n, co, oh, ow},
      [&](Var nn, Var ff, Var yy, Var xx) {
        return ir::sum(pad_temp(nn, rc, mul_const(yy, stride) + ry, mul_const(xx, stride) + rx) *
                           kernel(ff, rc, ry, rx),
                       {rc, ry, rx});
      },
      "conv2d_nchw", {"nn", "ff", "yy", "xx"}, "conv2d_nchw");
  return {data, kernel, out};
}

std::vector<Tensor> depthwise_conv2d_nchw(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k,
                                          int64_t stride, int64_t padding) {
  int64_t oh = conv_out(h, k, stride, padding, "depthwise_conv2d_nchw");
  int64_t ow = conv_out(w, k, stride, padding, "depthwise_conv2d_nchw");
  Tensor data = ir::placeholder({n, c, h, w}, "data");
  Tensor kernel = ir::placeholder({c, 1, k, k}, "kernel");
  Tensor padded = pad_spatial(data, padding, ir::const_of(DType::Float32, 0), "PaddedInput",
                              {"i0", "i1", "i2", "i3"});
  IterVar di = ir::reduce_axis(0, k, "di");
  IterVar dj = ir::reduce_axis(0, k, "dj");
  Tensor out = ir::compute(
      {n, c, oh, ow},
      [&](Var b, Var ch, Var i, Var j) {
        // With a channel multiplier of one, topi's floordiv(c, 1) and floormod(c, 1) fold to
        // c and 0.
        return ir::sum(padded(b, ch, mul_const(i, stride) + di, mul_const(j, stride) + dj) *
                           kernel(ch, i32(0), di, dj),
                       {di, dj});
      },
      "DepthwiseConv2d", {"b", "c", "i", "j"}, "depthwise_conv2d_nchw");
  return {data, kernel, out};
}

std::vector<Tensor> softmax(int64_t m, int64_t n) {
  Tensor a = ir::placeholder({m, n}, "A");
  IterVar k1 = ir::reduce_axis(0, n, "k");
  IterVar k2 = ir::reduce_axis(0, n, "k");
  Tensor maxelem =
      ir::compute({m}, [&](Var i0) { return ir::max(a(i0, k1), std::vector<IterVar>{k1}); },
                  "T_softmax_maxelem", {"i0"});
  Tensor expo =
      ir::compute({m, n}, [&](Var i0, Var i1) { return ir::exp(a(i0, i1) - maxelem(i0)); },
                  "T_softmax_exp", {"i0", "i1"});
  Tensor expsum = ir::compute({m}, [&](Var i0) { return ir::sum(expo(i0, k2), {k2}); },
                              "T_softmax_expsum", {"i0"});
  Tensor norm = ir::compute({m, n}, [&](Var i0, Var i1) { return expo(i0, i1) / expsum(i0); },
                            "T_softmax_norm", {"i0", "i1"});
  return {a, norm};
}

std::vector<Tensor> layer_norm(int64_t n, int64_t d) {
  Tensor a = ir::placeholder({n, d}, "A");
  Tensor gamma = ir::placeholder({d}, "gamma");
  Tensor beta = ir::placeholder({d}, "beta");
  IterVar k1 = ir::reduce_axis(0, d, "k");
  IterVar k2 = ir::reduce_axis(0, d, "k");
  Tensor s = ir::compute(
      {n}, [&](Var i0) { return ir::sum(a(i0, k1), {k1}); }, "T_layer_norm_sum", {"i0"},
      "comm_reduce");
  Tensor sq = ir::compute(
      {n}, [&](Var i0) { return ir::sum(a(i0, k2) * a(i0, k2), {k2}); }, "T_layer_norm_sqsum",
      {"i0"}, "comm_reduce");
  Expr extent = ir::const_of(DType::Float32, static_cast<double>(d));
  Expr eps = ir::const_of(DType::Float32, 1e-5);
  Tensor out = ir::compute(
      {n, d},
      [&](Var i0, Var i1) {
        Expr mean = s(i0) / extent;
        Expr var = sq(i0) / extent - mean * mean;
        return (a(i0, i1) - mean) / ir::sqrt(var + eps) * gamma(i1) + beta(i1);
      },
      "T_layer_norm", {"i0", "i1"}, "injective");
  return {a, gamma, beta, out};
}

std::vector<Tensor> max_pool2d(int64_t n, int64_t c, int64_t h, int64_t w, int64_t kernel,
                               int64_t stride, int64_t padding) {
  int64_t oh = conv_out(h, kernel, stride, padding, "max_pool2d");
  int64_t ow = conv_out(w, kernel, stride, padding, "max_pool2d");
  Tensor data = ir::placeholder({n, c, h, w}, "data");
  // topi pads only when some padding is non-zero.
  Tensor temp =
      padding == 0 ? data
                   : pad_spatial(data, padding,
                                 ir::const_of(DType::Float32, std::numeric_limits<float>::lowest()),
                                 "pad_temp", {"ax0", "ax1", "ax2", "ax3"});
  IterVar rv0 = ir::reduce_axis(0, kernel, "rv0");
  IterVar rv1 = ir::reduce_axis(0, kernel, "rv1");
  Tensor out = ir::compute(
      {n, c, oh, ow},
      [&](Var ax0, Var ax1, Var ax2, Var ax3) {
        return ir::max(temp(ax0, ax1, mul_const(ax2, stride) + rv0, mul_const(ax3, stride) + rv1),
                       std::vector<IterVar>{rv0, rv1});
      },
      "pool_max", {"ax0", "ax1", "ax2", "ax3"}, "pool_max");
  return {data, out};
}

}  // namespace builtin

std::vector<std::pair<std::string, Builder>> builtin_workloads() {
  std::vector<std::pair<std::string, Builder>> out;
  auto add = [&](const char* name, Builder b) { out.emplace_back(name, std::move(b)); };

  add("matmul", [](const std::vector<WorkloadArg>& args) {
    ArgReader r("matmul", "(N, L, M, dtype)", args, 4);
    return builtin::matmul(r.dim(0), r.dim(1), r.dim(2), r.dtype(3));
  });
  add("matmul_add", [](const std::vector<WorkloadArg>& args) {
    ArgReader r("matmul_add", "(N, L, M, dtype)", args, 4);
    return builtin::matmul_add(r.dim(0), r.dim(1), r.dim(2), r.dtype(3));
  });
  add("matmul_relu_relu", [](const std::vector<WorkloadArg>& args) {
    ArgReader r("matmul_relu_relu", "(N, L, M, dtype)", args, 4);
    return builtin::matmul_relu_relu(r.dim(0), r.dim(1), r.dim(2), r.dtype(3));
  });
  add("batch_matmul", [](const std::vector<WorkloadArg>& args) {
    ArgReader r("batch_matmul", "(B, M, N, K)", args, 4);
    return builtin::batch_matmul(r.dim(0), r.dim(1), r.dim(2), r.dim(3));
  });
  add("dense_bias_relu", [](const std::vector<WorkloadArg>& args) {
    ArgReader r("dense_bias_relu", "(N, K, M)", args, 3);
    return builtin::dense_bias_relu(r.dim(0), r.dim(1), r.dim(2));
  });
  add("conv2d_nchw", [](const std::vector<WorkloadArg>& args) {
    ArgReader r("conv2d_nchw", "(N, CI, H, W, CO, KH, KW, stride, padding)", args, 9);
    return builtin::conv2d_nchw(r.dim(0), r.dim(1), r.dim(2), r.dim(3), r.dim(4), r.dim(5),
                                r.dim(6), r.integer(7, 1, kMaxSmall), r.integer(8, 0, kMaxSmall));
  });
  add("depthwise_conv2d_nchw", [](const std::vector<WorkloadArg>& args) {
    ArgReader r("depthwise_conv2d_nchw", "(N, C, H, W, K, stride, padding)", args, 7);
    return builtin::depthwise_conv2d_nchw(r.dim(0), r.dim(1), r.dim(2), r.dim(3), r.dim(4),
                                          r.integer(5, 1, kMaxSmall), r.integer(6, 0, kMaxSmall));
  });
  add("softmax", [](const std::vector<WorkloadArg>& args) {
    ArgReader r("softmax", "(M, N)", args, 2);
    return builtin::softmax(r.dim(0), r.dim(1));
  });
  add("layer_norm", [](const std::vector<WorkloadArg>& args) {
    ArgReader r("layer_norm", "(N, D)", args, 2);
    return builtin::layer_norm(r.dim(0), r.dim(1));
  });
  add("max_pool2d", [](const std::vector<WorkloadArg>& args) {
    ArgReader r("max_pool2d", "(N, C, H, W, kernel, stride, padding)", args, 7);
    return builtin::max_pool2d(r.dim(0), r.dim(1), r.dim(2), r.dim(3), r.dim(4),
                               r.integer(5, 1, kMaxSmall), r.integer(6, 0, kMaxSmall));
  });
  return out;
}

}  // namespace mrd::registry
