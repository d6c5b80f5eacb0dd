#include "src/kernels/fused_eigen_output_kernels.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"

namespace minflow {
namespace {

struct FusionPattern {
  FusedComputationType type;
  std::vector<std::string> ops;
};

const std::vector<FusionPattern>& Patterns() {
  using FCT = FusedComputationType;
  static const auto* const kPatterns = new std::vector<FusionPattern>{
      {FCT::kBiasAdd, {"BiasAdd"}},
      {FCT::kBiasAddWithRelu, {"BiasAdd", "Relu"}},
      {FCT::kBiasAddWithRelu6, {"BiasAdd", "Relu6"}},
      {FCT::kBiasAddWithElu, {"BiasAdd", "Elu"}},
      {FCT::kBiasAddWithLeakyRelu, {"BiasAdd", "LeakyRelu"}},
      {FCT::kFusedBatchNorm, {"FusedBatchNorm"}},
      {FCT::kFusedBatchNormWithRelu, {"FusedBatchNorm", "Relu"}},
      {FCT::kFusedBatchNormWithRelu6, {"FusedBatchNorm", "Relu6"}},
      {FCT::kFusedBatchNormWithElu, {"FusedBatchNorm", "Elu"}},
      {FCT::kFusedBatchNormWithLeakyRelu, {"FusedBatchNorm", "LeakyRelu"}},
  };
  return *kPatterns;
}

bool IsBatchNorm(FusedComputationType type) {
  using FCT = FusedComputationType;
  return type == FCT::kFusedBatchNorm || type == FCT::kFusedBatchNormWithRelu ||
         type == FCT::kFusedBatchNormWithRelu6 ||
         type == FCT::kFusedBatchNormWithElu ||
         type == FCT::kFusedBatchNormWithLeakyRelu;
}

}  // namespace

const std::vector<FusedComputationType>& ConvolutionFusions() {
  using FCT = FusedComputationType;
  static const auto* fusions =
      new std::vector<FusedComputationType>{FCT::kBiasAdd,
                                            FCT::kBiasAddWithRelu,
                                            FCT::kBiasAddWithRelu6,
                                            FCT::kBiasAddWithElu,
                                            FCT::kBiasAddWithLeakyRelu,
                                            FCT::kFusedBatchNorm,
                                            FCT::kFusedBatchNormWithRelu,
                                            FCT::kFusedBatchNormWithRelu6,
                                            FCT::kFusedBatchNormWithElu,
                                            FCT::kFusedBatchNormWithLeakyRelu};
  return *fusions;
}

Status InitFusedComputation(OpKernelConstruction* ctx,
                            const std::string& kernel_name,
                            const std::vector<FusedComputationType>& allowed,
                            FusedComputation* fusion) {
  std::vector<std::string> fused_ops;
  MF_RETURN_IF_ERROR(ctx->GetAttr("fused_ops", &fused_ops));
  int64_t num_args = 0;
  MF_RETURN_IF_ERROR(ctx->GetAttr("num_args", &num_args));
  if (fused_ops.empty()) {
    return errors::InvalidArgument("Fused ", kernel_name,
                                   " must have at least one fused op.");
  }
  const FusionPattern* found = nullptr;
  for (const FusionPattern& p : Patterns()) {
    if (p.ops == fused_ops &&
        std::find(allowed.begin(), allowed.end(), p.type) != allowed.end()) {
      found = &p;
    }
  }
  if (found == nullptr) {
    return errors::Unimplemented("Fusion is not implemented: [",
                                 absl::StrJoin(fused_ops, ","), "]");
  }
  fusion->type = found->type;
  if (IsBatchNorm(found->type)) {
    if (num_args != 4) {
      return errors::InvalidArgument(
          "Fused ", kernel_name,
          " with batch norm must have four extra arguments: scale, offset, "
          "mean, variance.");
    }
    MF_RETURN_IF_ERROR(ctx->GetAttr("epsilon", &fusion->epsilon));
  } else if (num_args != 1) {
    return errors::InvalidArgument(
        "Fused ", kernel_name,
        " with BiasAdd must have one extra argument: bias.");
  }
  if (ctx->HasAttr("leakyrelu_alpha")) {
    MF_RETURN_IF_ERROR(
        ctx->GetAttr("leakyrelu_alpha", &fusion->leakyrelu_alpha));
  }
  return OkStatus();
}

}  // namespace minflow
