// A SignatureDef's inputs and outputs as the tensors to feed and fetch.
#pragma once

#include <string>
#include <vector>

#include "minflow/core/status.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/core/types.h"

namespace minflow {

class MetaGraphDef;
class SignatureDef;

// One input or output of a signature.
struct SignatureTensor {
  std::string key;          // the signature's name for it, e.g. "x"
  std::string tensor_name;  // the graph's tensor, "node:port"
  DataType dtype = DT_INVALID;
  PartialTensorShape shape;  // unknown rank when the SignatureDef has none
};

// A signature's inputs and outputs, each sorted by key.
struct SignatureTensors {
  std::string method_name;
  std::vector<SignatureTensor> inputs;
  std::vector<SignatureTensor> outputs;
};

// Reads `signature`. Unimplemented naming the key for a sparse or
// composite TensorInfo (only dense tensors are supported); InvalidArgument
// for an empty tensor name or a malformed shape.
StatusOr<SignatureTensors> GetSignatureTensors(const SignatureDef& signature);

// The signature `signature_key` of `meta_graph_def`; NotFound listing the
// signatures there are when it has none of that name.
StatusOr<SignatureTensors> GetSignatureTensors(
    const MetaGraphDef& meta_graph_def, const std::string& signature_key);

}  // namespace minflow
