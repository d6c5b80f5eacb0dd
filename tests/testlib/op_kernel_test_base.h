// OpsTestBase: runs one kernel on one device, TensorFlow's kernel-test
// fixture with a fluent node builder:
//
//   class ZeroOutTest : public OpsTestBase {};
//   TEST_F(ZeroOutTest, KeepsFirst) {
//     MakeNode("ZeroOut").Input(DT_INT32).Attr("preserve_index", 0);
//     MF_ASSERT_OK(MakeOp());
//     AddInputFromArray<int32_t>(TensorShape({3}), {5, 6, 7});
//     MF_ASSERT_OK(RunOpKernel());
//     test::ExpectTensorEqual<int32_t>(*GetOutput(0),
//                                      test::AsTensor<int32_t>({5, 0, 0}));
//   }
//
// For device-parameterised tests derive from OpsTestBaseP and instantiate
// with MF_INSTANTIATE_KERNEL_TEST_DEVICES(Suite): every test runs on each
// device registered with RegisterKernelTestDevice (CPU always; GPU when the
// cuda testlib registers it and a GPU is present, otherwise GTEST_SKIP with
// the reason).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "gtest/gtest.h"
#include "minflow/core/allocator.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"
#include "minflow/core/types.h"
#include "minflow/framework/cancellation.h"
#include "minflow/framework/device.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/node_def.pb.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace test {

// How kernel tests get a device of some type and move tensors to and from
// it. `make` returns null, with the reason in *why_not, when no such
// device is present (no GPU on this machine).
struct KernelTestDevice {
  DeviceType type;
  std::function<std::unique_ptr<Device>(std::string* why_not)> make;
  // Host tensor -> tensor in the device's memory, and back. Null means the
  // device uses host memory (copies are shares).
  std::function<Status(Device*, const Tensor&, Tensor*)> to_device;
  std::function<Status(Device*, const Tensor&, Tensor*)> to_host;
};

// Adds a device kind for kernel tests (the cuda testlib adds GPU at static
// init). Returns true so it can initialise a static.
bool RegisterKernelTestDevice(KernelTestDevice device);
// The registered kinds, CPU first.
std::vector<DeviceType> KernelTestDeviceTypes();

// Builds the NodeDef of the kernel under test: each Input() is one input
// arg of the op, in order, whose dtypes fill in the op's type and length
// attrs (as TensorFlow's FakeInput does). Trailing args not given take
// their types from the op or from attrs set with Attr(); attrs not given
// take the op's defaults.
class TestNodeBuilder {
 public:
  TestNodeBuilder(absl::string_view name, absl::string_view op);

  // One input arg holding a single tensor of `dtype`.
  TestNodeBuilder& Input(DataType dtype);
  // One list input arg (`N * T`, `list(type)`) of these dtypes.
  TestNodeBuilder& Input(absl::Span<const DataType> dtypes);
  TestNodeBuilder& Input(std::initializer_list<DataType> dtypes) {
    return Input(absl::Span<const DataType>(dtypes.begin(), dtypes.size()));
  }
  // `n` copies of `dtype` as one list arg.
  TestNodeBuilder& Input(int n, DataType dtype);

  template <typename T>
  TestNodeBuilder& Attr(absl::string_view name, const T& value) {
    AddNodeAttr(name, value, &node_def_);
    return *this;
  }
  TestNodeBuilder& Attr(absl::string_view name,
                        std::initializer_list<int64_t> value) {
    AddNodeAttr(name, absl::Span<const int64_t>(value.begin(), value.size()),
                &node_def_);
    return *this;
  }
  TestNodeBuilder& Device(absl::string_view device);

  // Infers attrs from the inputs, adds defaults and validates the node.
  Status Finalize(NodeDef* node_def) const;

 private:
  NodeDef node_def_;
  std::vector<DataTypeVector> arg_types_;
};

class OpsTestBase : public ::testing::Test {
 public:
  // A CPU test; OpsTestBaseP picks the device from the test parameter.
  OpsTestBase();
  explicit OpsTestBase(const DeviceType& device_type);
  ~OpsTestBase() override;

  // Starts building the node (see TestNodeBuilder); MakeOp() finishes it.
  TestNodeBuilder& MakeNode(absl::string_view op,
                            absl::string_view name = "op");
  // Or give a finished NodeDef.
  void set_node_def(const NodeDef& node_def);
  NodeDef* node_def() { return &node_def_; }

  // Creates the kernel for the node on the test device. Errors carry the
  // node's context. TensorFlow's name InitOp() also works.
  Status MakeOp();
  Status InitOp() { return MakeOp(); }

  // Inputs, in the kernel's input order.
  template <typename T>
  void AddInputFromArray(const TensorShape& shape, absl::Span<const T> data) {
    AddInputTensor(test::AsTensor<T>(data, shape));
  }
  template <typename T>
  void AddInputFromArray(const TensorShape& shape,
                         std::initializer_list<T> data) {
    AddInputTensor(test::AsTensor<T>(data, shape));
  }
  template <typename T, typename SrcType>
  void AddInputFromList(const TensorShape& shape,
                        std::initializer_list<SrcType> data) {
    std::vector<T> converted;
    for (const SrcType& v : data) converted.push_back(static_cast<T>(v));
    AddInputFromArray<T>(shape, absl::Span<const T>(converted));
  }
  // Element i is fn(i).
  template <typename T>
  void AddInput(const TensorShape& shape, const std::function<T(int)>& fn) {
    Tensor t(DataTypeToEnum<T>::v(), shape);
    test::FillFn<T>(&t, fn);
    AddInputTensor(std::move(t));
  }
  // A host tensor (copied to the device for device tests).
  void AddInputTensor(const Tensor& host_tensor);

  // Runs Compute (or ComputeAsync, waiting for done) once with the inputs
  // added; the status names the node on error.
  Status RunOpKernel();

  // Input or output `i` as a host tensor (copied back from the device);
  // null when the output was not set.
  const Tensor& GetInput(int i) const;
  Tensor* GetOutput(int i);

  // Replaces the allocator outputs and temporaries come from (e.g. a
  // CpuAllocator with a bytes limit); not owned.
  void set_allocator(Allocator* allocator) { allocator_ = allocator; }
  Allocator* allocator();

  OpKernel* op_kernel() { return kernel_.get(); }
  OpKernelContext* context() { return context_.get(); }
  Device* device() { return device_.get(); }
  const DeviceType& device_type() const { return device_type_; }
  CancellationManager* cancellation_manager() { return &cancellation_; }
  const DataTypeVector& output_types() const;

  // Clears the inputs and outputs (the kernel stays) for another run.
  void ClearInputs();

 protected:
  // For OpsTestBaseP: switches the device before the test body runs.
  void UseDevice(const DeviceType& device_type);
  // Why device() is null, when it is.
  const std::string& why_no_device() const { return why_no_device_; }

 private:
  DeviceType device_type_;
  const KernelTestDevice* device_kind_ = nullptr;
  std::string why_no_device_;
  std::unique_ptr<Device> device_;
  Allocator* allocator_ = nullptr;
  CancellationManager cancellation_;

  std::unique_ptr<TestNodeBuilder> builder_;
  NodeDef node_def_;
  std::unique_ptr<OpKernel> kernel_;

  std::vector<std::unique_ptr<Tensor>> inputs_;
  std::vector<TensorValue> input_values_;
  std::unique_ptr<OpKernelContext::Params> params_;
  std::unique_ptr<OpKernelContext> context_;
  // Host copies of outputs, made on demand by GetOutput.
  std::vector<std::unique_ptr<Tensor>> host_outputs_;
};

// Parameterised over KernelTestDeviceTypes(); SetUp skips (with the reason)
// when the device is missing on this machine.
class OpsTestBaseP : public OpsTestBase,
                     public ::testing::WithParamInterface<DeviceType> {
 public:
  void SetUp() override;
};

}  // namespace test
}  // namespace minflow

#define MF_INSTANTIATE_KERNEL_TEST_DEVICES(suite)                       \
  INSTANTIATE_TEST_SUITE_P(                                             \
      Devices, suite,                                                   \
      ::testing::ValuesIn(::minflow::test::KernelTestDeviceTypes()),    \
      [](const ::testing::TestParamInfo<::minflow::DeviceType>& info) { \
        return info.param;                                              \
      })
