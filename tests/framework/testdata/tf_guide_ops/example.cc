// The guide's Example op: a kernel templated on <Device, T> that checks its
// input's size against tensorflow::kint32max and calls ExampleFunctor, with
// CPU kernels stamped by REGISTER_CPU(T) and GPU kernels by REGISTER_GPU(T)
// when GOOGLE_CUDA is set (it is not, here). In the guide's shape, only the
// includes changed (and the op's name: see zero_out.cc).
#define EIGEN_USE_THREADS
#include "example.h"

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/tf_compat.h"

using namespace tensorflow;

using CPUDevice = Eigen::ThreadPoolDevice;
using GPUDevice = Eigen::GpuDevice;

REGISTER_OP("Guide>Example")
    .Attr("T: numbertype")
    .Input("input: T")
    .Output("input_times_two: T")
    .SetShapeFn([](::tensorflow::shape_inference::InferenceContext* c) {
      c->set_output(0, c->input(0));
      return Status::OK();
    });

// The CPU specialisation of the computation.
template <typename T>
struct ExampleFunctor<CPUDevice, T> {
  void operator()(const CPUDevice& d, int size, const T* in, T* out) {
    for (int i = 0; i < size; ++i) {
      out[i] = 2 * in[i];
    }
  }
};

// The kernel; T is the tensors' element type.
template <typename Device, typename T>
class ExampleOp : public OpKernel {
 public:
  explicit ExampleOp(OpKernelConstruction* context) : OpKernel(context) {}

  void Compute(OpKernelContext* context) override {
    const Tensor& input_tensor = context->input(0);

    Tensor* output_tensor = NULL;
    OP_REQUIRES_OK(context, context->allocate_output(0, input_tensor.shape(),
                                                     &output_tensor));

    // The functor takes an int size.
    OP_REQUIRES(context, input_tensor.NumElements() <= tensorflow::kint32max,
                errors::InvalidArgument("Too many elements in tensor"));
    ExampleFunctor<Device, T>()(context->eigen_device<Device>(),
                                static_cast<int>(input_tensor.NumElements()),
                                input_tensor.flat<T>().data(),
                                output_tensor->flat<T>().data());
  }
};

// The CPU kernels.
#define REGISTER_CPU(T)                                                \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("Guide>Example").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ExampleOp<CPUDevice, T>);
REGISTER_CPU(float);
REGISTER_CPU(int32);

// The GPU kernels, whose functors a .cu file instantiates.
#ifdef GOOGLE_CUDA
#define REGISTER_GPU(T)                                                \
  extern template class ExampleFunctor<GPUDevice, T>;                  \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("Guide>Example").Device(DEVICE_GPU).TypeConstraint<T>("T"), \
      ExampleOp<GPUDevice, T>);
REGISTER_GPU(float);
REGISTER_GPU(int32);
#endif  // GOOGLE_CUDA
