// The epilogues of TensorFlow's fused contraction ops (_FusedMatMul,
// _FusedConv2D, _FusedDepthwiseConv2dNative): BiasAdd or an inference
// FusedBatchNorm, then an optional activation, applied in place to blocks of
// the output right after the contraction wrote them, while they are still
// in cache. See Note [Fused epilogues].
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "minflow/core/tensor.h"
#include "minflow/framework/op_kernel.h"
#include "src/kernels/relu_op_functor.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minflow {

// Note [Fused epilogues]
// ~~~~~~~~~~~~~~~~~~~~~~
// A fused op runs the existing contraction (Eigen's tensor contraction for
// MatMul, the tiled im2col GEMM for Conv2D, the per-pixel loop for
// depthwise) with a hook called on each finished block of output rows; the
// hook adds the bias (or normalises) and applies the activation to that
// block, so the output is written once and read once more while hot,
// instead of twice more through memory by separate BiasAdd and Relu
// kernels. Eigen's contraction calls its OutputKernel per output block;
// Conv2D calls its hook per tile. The formulas are those of the unfused
// kernels (relu_op_functor.h, fused_batch_norm_op.cc), so a fused op equals
// the unfused chain up to float rounding.

// What follows the contraction.
enum class FusedComputationType {
  kBiasAdd,
  kBiasAddWithRelu,
  kBiasAddWithRelu6,
  kBiasAddWithElu,
  kBiasAddWithLeakyRelu,
  kFusedBatchNorm,
  kFusedBatchNormWithRelu,
  kFusedBatchNormWithRelu6,
  kFusedBatchNormWithElu,
  kFusedBatchNormWithLeakyRelu,
};

// The attrs of a fused op, validated.
struct FusedComputation {
  FusedComputationType type = FusedComputationType::kBiasAdd;
  float epsilon = 0.0001f;
  float leakyrelu_alpha = 0.2f;
};

// Reads `fused_ops`, `num_args`, `epsilon` and (where the op has it)
// `leakyrelu_alpha`, and checks them as TensorFlow's
// InitializeFusedComputation does: Unimplemented for a `fused_ops` list not
// in `allowed`, InvalidArgument for a `num_args` the fusion does not take.
// `kernel_name` ("Conv2D", "MatMul", ...) goes into the messages.
// What _FusedConv2D and _FusedDepthwiseConv2dNative accept on the CPU:
// BiasAdd or FusedBatchNorm, each alone or followed by Relu, Relu6, Elu or
// LeakyRelu.
const std::vector<FusedComputationType>& ConvolutionFusions();

Status InitFusedComputation(OpKernelConstruction* ctx,
                            const std::string& kernel_name,
                            const std::vector<FusedComputationType>& allowed,
                            FusedComputation* fusion);

// The per-channel vectors an epilogue reads, checked against the output's
// channel count. Owns the batch-norm scaling factor it precomputes.
template <typename T>
class FusedEpilogue {
 public:
  // Reads the fused args (inputs first_arg...) of `ctx`: one `bias` or
  // `scale`, `offset`, `mean`, `variance`, each of `channels` elements
  // and type T. InvalidArgument otherwise.
  Status Init(OpKernelContext* ctx, const FusedComputation& fusion,
              int first_arg, int64_t channels) {
    fusion_ = fusion;
    const bool bn = IsBatchNorm();
    const int num_args = bn ? 4 : 1;
    static const char* const kBiasNames[] = {"bias"};
    static const char* const kBnNames[] = {"scale", "offset", "mean",
                                           "variance"};
    const Tensor* args[4] = {nullptr, nullptr, nullptr, nullptr};
    for (int i = 0; i < num_args; ++i) {
      const char* name = bn ? kBnNames[i] : kBiasNames[i];
      if (first_arg + i >= ctx->num_inputs()) {
        return errors::InvalidArgument("Fused op is missing its ", name,
                                       " argument");
      }
      const Tensor& t = ctx->input(first_arg + i);
      if (t.dtype() != DataTypeToEnum<T>::v()) {
        return errors::InvalidArgument(name,
                                       " must have the type of the input, ",
                                       DataTypeString(DataTypeToEnum<T>::v()),
                                       ", but got ", DataTypeString(t.dtype()));
      }
      if (t.dims() != 1) {
        return errors::InvalidArgument(name, " must be 1-dimensional, but got ",
                                       t.shape().DebugString());
      }
      if (t.dim_size(0) != channels) {
        return errors::InvalidArgument(
            name, " must have as many elements as the output has channels (",
            channels, "), but got ", t.shape().DebugString());
      }
      args[i] = &t;
    }
    if (!bn) {
      bias_ = args[0]->base<const T>();
      return OkStatus();
    }
    offset_ = args[1]->base<const T>();
    mean_ = args[2]->base<const T>();
    // As FusedBatchNorm in inference: rsqrt(variance + epsilon) * scale.
    MF_RETURN_IF_ERROR(ctx->allocate_temp(DataTypeToEnum<T>::v(),
                                          TensorShape({channels}), &scaling_));
    const T* scale = args[0]->base<const T>();
    const T* variance = args[3]->base<const T>();
    T* scaling = scaling_.base<T>();
    const T eps = static_cast<T>(fusion.epsilon);
    for (int64_t c = 0; c < channels; ++c) {
      scaling[c] = Eigen::numext::rsqrt(variance[c] + eps) * scale[c];
    }
    return OkStatus();
  }

  // Applies the epilogue in place to `rows` rows of `channels` values,
  // `ld` apart, holding output channels [channel0, channel0 + channels).
  void Apply(T* data, int64_t rows, int64_t channels, int64_t channel0,
             int64_t ld) const {
    using FCT = FusedComputationType;
    switch (fusion_.type) {
      case FCT::kBiasAdd:
      case FCT::kFusedBatchNorm:
        return Run(Identity(), data, rows, channels, channel0, ld);
      case FCT::kBiasAddWithRelu:
      case FCT::kFusedBatchNormWithRelu:
        return Run(Relu(), data, rows, channels, channel0, ld);
      case FCT::kBiasAddWithRelu6:
      case FCT::kFusedBatchNormWithRelu6:
        return Run(Relu6(), data, rows, channels, channel0, ld);
      case FCT::kBiasAddWithElu:
      case FCT::kFusedBatchNormWithElu:
        return Run(Elu(), data, rows, channels, channel0, ld);
      case FCT::kBiasAddWithLeakyRelu:
      case FCT::kFusedBatchNormWithLeakyRelu:
        return Run(LeakyRelu{static_cast<T>(fusion_.leakyrelu_alpha)}, data,
                   rows, channels, channel0, ld);
    }
  }

 private:
  using Vec =
      Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor>, Eigen::Unaligned>;
  using ConstVec = Eigen::TensorMap<Eigen::Tensor<const T, 1, Eigen::RowMajor>,
                                    Eigen::Unaligned>;

  // Each activation as an Eigen expression (what the unfused kernels
  // evaluate) and, where it is cheap, the same formula on one value with
  // NaN propagated as PropagateNaN does, for the plain loop in Run.
  struct Identity {
    static constexpr bool kHasScalar = true;
    T operator()(T v) const { return v; }
    template <typename In>
    auto operator()(const In& in) const {
      return in;
    }
  };
  struct Relu {
    static constexpr bool kHasScalar = true;
    T operator()(T v) const { return v < T(0) ? T(0) : v; }
    template <typename In>
    auto operator()(const In& in) const {
      return functor::relu<T>::Expr(in);
    }
  };
  struct Relu6 {
    static constexpr bool kHasScalar = true;
    T operator()(T v) const { return v < T(0) ? T(0) : (v > T(6) ? T(6) : v); }
    template <typename In>
    auto operator()(const In& in) const {
      return functor::relu6<T>::Expr(in);
    }
  };
  struct Elu {
    static constexpr bool kHasScalar = false;  // expm1 vectorises in Eigen
    template <typename In>
    auto operator()(const In& in) const {
      return functor::elu<T>::Expr(in);
    }
  };
  // functor::LeakyRelu's formula; that functor assigns a whole tensor, so
  // it cannot be composed.
  struct LeakyRelu {
    static constexpr bool kHasScalar = true;
    T alpha;
    T operator()(T v) const { return v > T(0) ? v : v * alpha; }
    template <typename In>
    auto operator()(const In& in) const {
      return (in > T(0)).select(in, in * in.constant(alpha));
    }
  };

  bool IsBatchNorm() const {
    using FCT = FusedComputationType;
    switch (fusion_.type) {
      case FCT::kFusedBatchNorm:
      case FCT::kFusedBatchNormWithRelu:
      case FCT::kFusedBatchNormWithRelu6:
      case FCT::kFusedBatchNormWithElu:
      case FCT::kFusedBatchNormWithLeakyRelu:
        return true;
      default:
        return false;
    }
  }

  // Note [Epilogue loops]: a block is many short rows (one per output
  // pixel, as few as 16-64 channels), so a per-row Eigen assignment spends
  // more on setting up each row than on its arithmetic; a plain loop over
  // the channels, which the compiler vectorises, costs half as much on
  // VGG's first layer (64 channels). Elu keeps the expression for expm1.
  template <typename Activation>
  void Run(const Activation& act, T* data, int64_t rows, int64_t channels,
           int64_t channel0, int64_t ld) const {
    if (IsBatchNorm()) {
      const T* mean = mean_ + channel0;
      const T* scaling = scaling_.base<const T>() + channel0;
      const T* offset = offset_ + channel0;
      if constexpr (Activation::kHasScalar) {
        for (int64_t r = 0; r < rows; ++r) {
          T* row = data + r * ld;
          for (int64_t c = 0; c < channels; ++c) {
            row[c] = act((row[c] - mean[c]) * scaling[c] + offset[c]);
          }
        }
      } else {
        ConstVec mean_v(mean, channels), scaling_v(scaling, channels),
            offset_v(offset, channels);
        for (int64_t r = 0; r < rows; ++r) {
          Vec row(data + r * ld, channels);
          row = act((row - mean_v) * scaling_v + offset_v);
        }
      }
    } else {
      const T* bias = bias_ + channel0;
      if constexpr (Activation::kHasScalar) {
        for (int64_t r = 0; r < rows; ++r) {
          T* row = data + r * ld;
          for (int64_t c = 0; c < channels; ++c) row[c] = act(row[c] + bias[c]);
        }
      } else {
        ConstVec bias_v(bias, channels);
        for (int64_t r = 0; r < rows; ++r) {
          Vec row(data + r * ld, channels);
          row = act(row + bias_v);
        }
      }
    }
  }

  FusedComputation fusion_;
  const T* bias_ = nullptr;
  const T* offset_ = nullptr;
  const T* mean_ = nullptr;
  Tensor scaling_;
};

// An Eigen tensor-contraction OutputKernel that applies a FusedEpilogue to
// each finished block of a row-major [rows, channels] output. Eigen
// evaluates a row-major contraction with its arguments swapped, so a
// block's mapper rows are channels and its columns output rows.
template <typename T>
struct FusedContractionOutputKernel {
  const FusedEpilogue<T>* epilogue;

  template <typename Index, typename Scalar>
  EIGEN_ALWAYS_INLINE void operator()(
      const Eigen::internal::blas_data_mapper<Scalar, Index, Eigen::ColMajor>&
          output_mapper,
      const Eigen::TensorContractionParams& params, Index i, Index /*j*/,
      Index num_rows, Index num_cols) const {
    eigen_assert(params.swapped_arguments);
    (void)params;
    epilogue->Apply(&output_mapper(0, 0), num_cols, num_rows, i,
                    output_mapper.stride());
  }
};

}  // namespace minflow
