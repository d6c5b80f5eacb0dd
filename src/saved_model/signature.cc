#include "minflow/saved_model/signature.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "minflow/meta_graph.pb.h"

namespace minflow {
namespace {

Status ReadTensors(const google::protobuf::Map<std::string, TensorInfo>& infos,
                   const char* what, std::vector<SignatureTensor>* out) {
  for (const auto& [key, info] : infos) {
    if (info.encoding_case() != TensorInfo::kName) {
      return errors::Unimplemented(
          "The signature's ", what, " '", key, "' is a ",
          info.has_coo_sparse() ? "sparse" : "composite",
          " tensor; minflow supports dense tensors only");
    }
    if (info.name().empty()) {
      return errors::InvalidArgument("The signature's ", what, " '", key,
                                     "' names no tensor");
    }
    SignatureTensor tensor;
    tensor.key = key;
    tensor.tensor_name = info.name();
    tensor.dtype = info.dtype();
    if (info.has_tensor_shape()) {
      MF_RETURN_IF_ERROR(
          errors::Prefix(PartialTensorShape::BuildPartialTensorShape(
                             info.tensor_shape(), &tensor.shape),
                         "The signature's ", what, " '", key, "': "));
    }
    out->push_back(std::move(tensor));
  }
  std::sort(out->begin(), out->end(),
            [](const SignatureTensor& a, const SignatureTensor& b) {
              return a.key < b.key;
            });
  return OkStatus();
}

}  // namespace

StatusOr<SignatureTensors> GetSignatureTensors(const SignatureDef& signature) {
  SignatureTensors tensors;
  tensors.method_name = signature.method_name();
  MF_RETURN_IF_ERROR(ReadTensors(signature.inputs(), "input", &tensors.inputs));
  MF_RETURN_IF_ERROR(
      ReadTensors(signature.outputs(), "output", &tensors.outputs));
  return tensors;
}

StatusOr<SignatureTensors> GetSignatureTensors(
    const MetaGraphDef& meta_graph_def, const std::string& signature_key) {
  const auto it = meta_graph_def.signature_def().find(signature_key);
  if (it == meta_graph_def.signature_def().end()) {
    std::vector<std::string> keys;
    for (const auto& [key, unused] : meta_graph_def.signature_def()) {
      keys.push_back(key);
    }
    std::sort(keys.begin(), keys.end());
    return errors::NotFound("No signature '", signature_key,
                            "' in the MetaGraph; it has ",
                            keys.empty() ? "none" : absl::StrJoin(keys, ", "));
  }
  StatusOr<SignatureTensors> tensors = GetSignatureTensors(it->second);
  if (!tensors.ok()) {
    return errors::Prefix(tensors.status(), "Signature '", signature_key,
                          "': ");
  }
  return tensors;
}

}  // namespace minflow
