// Feeds arbitrary bytes as a serialized TensorProto through TensorFromProto:
// every input must give a Tensor or an error, never a crash, a leak or a
// huge allocation.
#include <cstddef>
#include <cstdint>

#include "minflow/core/tensor.h"
#include "minflow/tensor.pb.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  minflow::TensorProto proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size))) return 0;
  minflow::TensorProtoOptions options;
  options.max_bytes = 64 << 20;  // stay inside libFuzzer's memory limit
  minflow::Tensor tensor;
  if (minflow::TensorFromProto(proto, &tensor, options).ok()) {
    // Touch the result the way callers do.
    (void)tensor.SummarizeValue(8);
    minflow::TensorProto again;
    tensor.AsProtoTensorContent(&again);
    minflow::Tensor back;
    if (!minflow::TensorFromProto(again, &back, options).ok()) __builtin_trap();
  }
  return 0;
}
