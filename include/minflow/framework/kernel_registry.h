// The kernel registry: which OpKernel class implements an op on a device
// for given attrs. REGISTER_KERNEL_BUILDER fills it at static-init time;
// the executor and the placer query it per node. Include op_kernel.h (which
// includes this) to register kernels.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "minflow/core/allocator.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/core/types.h"
#include "minflow/framework/kernel_def_builder.h"

namespace minflow {

class DeviceBase;
class KernelDef;
class KernelList;
class NodeDef;
class OpDef;
class OpKernel;
class OpKernelConstruction;
class OpRegistryInterface;

// Where a kernel's input or output lives. On the host device both are host
// memory; on an accelerator HOST_MEMORY marks args kept on the host.
enum MemoryType { DEVICE_MEMORY = 0, HOST_MEMORY = 1 };
using MemoryTypeVector = absl::InlinedVector<MemoryType, 4>;
using MemoryTypeSlice = absl::Span<const MemoryType>;

// Device types that can run a node, with the priority of the kernel that
// would run it, highest first.
using PrioritizedDeviceTypeVector =
    absl::InlinedVector<std::pair<DeviceType, int32_t>, 4>;

// Note [Lazy kernel validation]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// REGISTER_KERNEL_BUILDER runs in static initialisers, in no fixed order
// relative to REGISTER_OP, so a registration cannot be checked against its
// OpDef when it is made. Each registration is checked the first time a
// lookup touches its op (and all at once by ValidateKernelRegistrations):
// the op must be registered, every constraint must name an attr of the
// op of the matching kind (TypeConstraint -> `type`/`list(type)`, int ->
// `int`, ...), every HostMemory arg must name an input or output. A broken
// registration is never used: lookups for its (op, device) fail with its
// error, which also stays in KernelRegistrationErrors() for `minflow` to
// report at start-up. A registration for an op not (yet) registered is
// re-checked later, since a plugin may register the op after the kernel.

// Finds the kernel for `node_def` on `device_type` (see issue #5): only
// registrations whose label equals the node's `_kernel` attr ("" when
// absent) and whose every constraint holds (attrs missing from the node
// take the OpDef's default); the highest priority wins; DEVICE_DEFAULT
// registrations are the fallback. NotFound in TensorFlow's form ("No
// registered 'Op' OpKernel for 'CPU' devices compatible with node {{node
// n}} ... Registered: ...") when none matches; InvalidArgument ("Multiple
// OpKernel registrations match NodeDef at the same priority ...") on a tie,
// or when a constraint cannot be checked or the registration is broken.
// `def` and `kernel_class_name` may be null.
Status FindKernelDef(const DeviceType& device_type, const NodeDef& node_def,
                     const KernelDef** def, std::string* kernel_class_name);

// True when FindKernelDef would succeed.
bool KernelDefAvailable(const DeviceType& device_type, const NodeDef& node_def);

// The types among `prioritized_types` with a kernel for `node_def`, sorted
// by kernel priority (stable, so ties keep the caller's order). NotFound
// when the op is not registered; ValidateNodeDef's error when no device
// has a kernel and the node is malformed.
Status SupportedDeviceTypesForNode(
    const std::vector<DeviceType>& prioritized_types, const NodeDef& node_def,
    PrioritizedDeviceTypeVector* device_types);

// Looks up the op and its kernel, fills in attr defaults, validates the
// node, and runs the kernel's constructor. Returns the constructor's Status
// (as set through OP_REQUIRES); lookup errors name the node. `allocator`
// (may be null: the device's) serves allocate_temp in constructors.
Status CreateOpKernel(DeviceType device_type, DeviceBase* device,
                      Allocator* allocator, const NodeDef& node_def,
                      int graph_def_version, std::unique_ptr<OpKernel>* kernel);
// For a node of an imported graph: `node_def` was validated against
// `op_def` and has its attr defaults, and `input_types`/`output_types` are
// its types, so none of that is looked up or checked again, and the kernel
// shares `node_def` instead of copying it. The constructor also gets the
// shapes shape inference found for the node
// (OpKernelConstruction::input_shapes/output_shapes); each span is empty or
// has one entry per input (output).
Status CreateOpKernelForNode(DeviceType device_type, DeviceBase* device,
                             Allocator* allocator,
                             std::shared_ptr<const NodeDef> node_def,
                             const OpDef* op_def, DataTypeSlice input_types,
                             DataTypeSlice output_types, int graph_def_version,
                             absl::Span<const PartialTensorShape> input_shapes,
                             absl::Span<const PartialTensorShape> output_shapes,
                             std::unique_ptr<OpKernel>* kernel);
// TensorFlow's older form.
std::unique_ptr<OpKernel> CreateOpKernel(DeviceType device_type,
                                         DeviceBase* device,
                                         Allocator* allocator,
                                         const NodeDef& node_def,
                                         int graph_def_version, Status* status);

// Memory type of each input and output of `node_def` when run on
// `device_type`: HOST_MEMORY for args the kernel registers with HostMemory
// and, off the host, for string args; DEVICE_MEMORY otherwise (also when
// there is no kernel).
Status MemoryTypesForNode(const OpRegistryInterface* op_registry,
                          const DeviceType& device_type,
                          const NodeDef& node_def,
                          MemoryTypeVector* input_memory_types,
                          MemoryTypeVector* output_memory_types);

// Listings (for `minflow ops` and registration tests), in registration
// order.
KernelList GetAllRegisteredKernels();
KernelList GetFilteredRegisteredKernels(
    const std::function<bool(const KernelDef&)>& predicate);
KernelList GetRegisteredKernelsForOp(absl::string_view op_name);
// "  device='CPU'; T in [DT_FLOAT, DT_DOUBLE]\n" per kernel of the op, or
// "  <no registered kernels>\n".
std::string KernelsRegisteredForOp(absl::string_view op_name);

// Checks every registration (Note [Lazy kernel validation]) against
// `op_registry`: OK, or InvalidArgument listing each broken registration
// and each registration for an op the registry lacks.
Status ValidateKernelRegistrations(const OpRegistryInterface& op_registry);
// The broken registrations found so far, one Status each.
std::vector<Status> KernelRegistrationErrors();

namespace kernel_factory {

// Makes kernels for one registration. Implementations are stateless.
class OpKernelFactory {
 public:
  virtual ~OpKernelFactory() = default;
  // Returns a new kernel (owned by the caller), or null; errors go to
  // `context` through OP_REQUIRES.
  virtual OpKernel* Create(OpKernelConstruction* context) = 0;
};

// REGISTER_KERNEL_BUILDER's static object: adds one registration to the
// global registry when constructed. Thread-safe.
class OpKernelRegistrar {
 public:
  using CreateFn = OpKernel* (*)(OpKernelConstruction*);
  // Takes ownership of `kernel_def`.
  OpKernelRegistrar(const KernelDef* kernel_def,
                    absl::string_view kernel_class_name, CreateFn create_fn);
  OpKernelRegistrar(const KernelDef* kernel_def,
                    absl::string_view kernel_class_name,
                    std::unique_ptr<OpKernelFactory> factory);
};

}  // namespace kernel_factory

namespace register_kernel {
// `Name("Op")` inside REGISTER_KERNEL_BUILDER.
class Name : public KernelDefBuilder {
 public:
  explicit Name(const char* op) : KernelDefBuilder(op) {}
};
}  // namespace register_kernel

}  // namespace minflow

// REGISTER_KERNEL_BUILDER(Name("Op").Device(DEVICE_CPU)
//                             .TypeConstraint<float>("T"),
//                         MyOp<float>);
// at namespace scope registers `MyOp<float>` (constructed with an
// OpKernelConstruction*) for the op, device and constraints given. See
// Note [Lazy kernel validation] for when mistakes are reported.
#define REGISTER_KERNEL_BUILDER(kernel_builder, ...)                  \
  MF_REGISTER_KERNEL_BUILDER_UNIQ_HELPER(__COUNTER__, kernel_builder, \
                                         __VA_ARGS__)
#define MF_REGISTER_KERNEL_BUILDER_UNIQ_HELPER(ctr, kernel_builder, ...) \
  MF_REGISTER_KERNEL_BUILDER_UNIQ(ctr, kernel_builder, __VA_ARGS__)
#define MF_REGISTER_KERNEL_BUILDER_UNIQ(ctr, kernel_builder, ...)           \
  static ::minflow::kernel_factory::OpKernelRegistrar                       \
      mf_kernel_registrar_##ctr                                             \
      ABSL_ATTRIBUTE_UNUSED(                                                \
          ::minflow::register_kernel::kernel_builder.Build(), #__VA_ARGS__, \
          [](::minflow::OpKernelConstruction* context)                      \
              -> ::minflow::OpKernel* { return new __VA_ARGS__(context); })
