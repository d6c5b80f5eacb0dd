#define EIGEN_USE_THREADS

#include "src/kernels/cwise_ops_common.h"

#include <algorithm>

namespace minflow {
namespace internal {
namespace {

// a * b, or -1 past int64 (then the output shape fails validation).
int64_t MulOrMinusOne(int64_t a, int64_t b) {
  int64_t r;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r)) return -1;
  return r;
}

}  // namespace

// See Note [Broadcast planning]. Works on the shapes reversed (innermost
// dimension first) and reverses the results at the end.
bool PlanBroadcast(absl::Span<const absl::Span<const int64_t>> shapes,
                   bool fewer_dims_optimization, BCastVec* reshape,
                   BCastVec* bcast, BCastVec* output, BCastVec* result) {
  const int n = static_cast<int>(shapes.size());
  output->clear();
  result->clear();
  for (int i = 0; i < n; ++i) {
    reshape[i].clear();
    bcast[i].clear();
  }

  bool all_equal = true;
  for (int i = 1; i < n; ++i) {
    if (shapes[i] != shapes[0]) all_equal = false;
  }
  if (all_equal && fewer_dims_optimization) {
    // One flat dimension. Shapes are validated TensorShapes, so the product
    // cannot overflow.
    int64_t elements = 1;
    for (int64_t d : shapes[0]) elements *= d;
    output->assign(shapes[0].begin(), shapes[0].end());
    result->push_back(elements);
    for (int i = 0; i < n; ++i) {
      reshape[i].push_back(elements);
      bcast[i].push_back(1);
    }
    return true;
  }

  size_t largest_rank = 0;
  for (int i = 0; i < n; ++i) {
    largest_rank = std::max(largest_rank, shapes[i].size());
  }
  // Dimension j counted from the innermost; 1 past an input's rank.
  auto dim = [&](int i, size_t j) -> int64_t {
    const size_t rank = shapes[i].size();
    return j < rank ? shapes[i][rank - 1 - j] : 1;
  };

  absl::InlinedVector<bool, 4> prev_is_one(n, false);
  absl::InlinedVector<bool, 4> current_is_one(n, false);
  bool have_prev = false;
  for (size_t j = 0; j < largest_rank; ++j) {
    int64_t output_dim = -1;
    bool output_dim_set = false;
    for (int i = 0; i < n; ++i) {
      const int64_t d = dim(i, j);
      if (d == 1) {
        current_is_one[i] = true;
      } else {
        current_is_one[i] = false;
        if (!output_dim_set || d == output_dim) {
          output_dim = d;
          output_dim_set = true;
        } else {
          return false;
        }
      }
    }
    output->push_back(output_dim_set ? output_dim : 1);
    if (!output_dim_set) {
      // Every input is 1 here.
      if (!fewer_dims_optimization) {
        for (int i = 0; i < n; ++i) {
          reshape[i].push_back(1);
          bcast[i].push_back(1);
        }
        result->push_back(1);
      }
      continue;
    }
    if (fewer_dims_optimization && have_prev &&
        std::equal(current_is_one.begin(), current_is_one.end(),
                   prev_is_one.begin())) {
      // Same pattern as the previous dimension: merge into it.
      result->back() = MulOrMinusOne(result->back(), output_dim);
      for (int i = 0; i < n; ++i) {
        reshape[i].back() = MulOrMinusOne(reshape[i].back(), dim(i, j));
        bcast[i].back() =
            MulOrMinusOne(bcast[i].back(), current_is_one[i] ? output_dim : 1);
      }
    } else {
      result->push_back(output_dim);
      for (int i = 0; i < n; ++i) {
        reshape[i].push_back(dim(i, j));
        bcast[i].push_back(current_is_one[i] ? output_dim : 1);
      }
    }
    have_prev = true;
    prev_is_one = current_is_one;
  }
  if (result->empty()) {
    result->push_back(1);
    for (int i = 0; i < n; ++i) {
      reshape[i].push_back(1);
      bcast[i].push_back(1);
    }
  }
  std::reverse(output->begin(), output->end());
  std::reverse(result->begin(), result->end());
  for (int i = 0; i < n; ++i) {
    std::reverse(reshape[i].begin(), reshape[i].end());
    std::reverse(bcast[i].begin(), bcast[i].end());
  }
  return true;
}

}  // namespace internal

internal::BCastVec BCastStrides(const internal::BCastVec& reshape) {
  internal::BCastVec strides(reshape.size(), 0);
  int64_t stride = 1;
  for (int j = static_cast<int>(reshape.size()) - 1; j >= 0; --j) {
    strides[j] = reshape[j] == 1 ? 0 : stride;
    stride *= reshape[j];
  }
  return strides;
}

BinaryOpShared::BinaryOpShared(OpKernelConstruction* ctx, DataType out,
                               DataType in)
    : OpKernel(ctx) {
  OP_REQUIRES_OK(ctx, ctx->MatchSignature({in, in}, {out}));
  if (ctx->HasAttr("incompatible_shape_error")) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("incompatible_shape_error",
                                     &incompatible_shape_error_));
  }
}

BinaryOpShared::BinaryOpState::BinaryOpState(OpKernelContext* ctx,
                                             bool incompatible_shape_error)
    : in0(ctx->input(0)), in1(ctx->input(1)) {
  in0_num_elements = in0.NumElements();
  in1_num_elements = in1.NumElements();
  // Note [Binary op fast shapes]: identical shapes, or a rank-0 operand,
  // broadcast to the other operand's shape as one flat loop. Most nodes of
  // real graphs are one of these, and planning a broadcast (and building
  // its shape) cost more than adding two small tensors.
  const TensorShape* same = nullptr;
  if (in0.shape() == in1.shape() || in1.dims() == 0) {
    same = &in0.shape();
  } else if (in0.dims() == 0) {
    same = &in1.shape();
  }
  if (same != nullptr) {
    out_num_elements = same->num_elements();
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0, 1}, 0, *same, &out));
    ndims = 1;
    return;
  }
  bcast.emplace(in0.shape().dim_sizes(), in1.shape().dim_sizes());
  if (!bcast->IsValid()) {
    if (!incompatible_shape_error) {
      // TensorFlow's answer for Equal / NotEqual of unbroadcastable shapes:
      // a scalar "not equal".
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
      out->scalar<bool>()() = ctx->op_kernel().type_string() == "NotEqual";
      done = true;
      return;
    }
    ctx->SetStatus(errors::InvalidArgument(
        "Incompatible shapes: ", in0.shape().DebugString(), " vs. ",
        in1.shape().DebugString()));
    return;
  }
  // Each output dim is valid, but their product may not fit in int64.
  TensorShape output_shape;
  OP_REQUIRES_OK(
      ctx, TensorShape::BuildTensorShape(bcast->output_shape(), &output_shape));
  out_num_elements = output_shape.num_elements();
  OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                          {0, 1}, 0, output_shape, &out));
  ndims = static_cast<int>(bcast->x_reshape().size());
}

void BinaryOpShared::SetUnimplementedError(OpKernelContext* ctx) {
  ctx->SetStatus(errors::Unimplemented(
      "Broadcast between ", ctx->input(0).shape().DebugString(), " and ",
      ctx->input(1).shape().DebugString(), " is not supported yet."));
}

}  // namespace minflow
