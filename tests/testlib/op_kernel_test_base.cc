#include "tests/testlib/op_kernel_test_base.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "minflow/attr_value.pb.h"
#include "minflow/framework/op.h"
#include "minflow/framework/resource_mgr.h"
#include "minflow/op_def.pb.h"

namespace minflow {
namespace test {
namespace {

struct DeviceKinds {
  absl::Mutex mu;
  std::vector<std::unique_ptr<KernelTestDevice>> kinds ABSL_GUARDED_BY(mu);
};

DeviceKinds* Kinds() {
  static DeviceKinds* kinds = [] {
    auto* k = new DeviceKinds;
    auto cpu = std::make_unique<KernelTestDevice>();
    cpu->type = DEVICE_CPU;
    cpu->make = [](std::string*) -> std::unique_ptr<Device> {
      // Two intra-op threads: enough to exercise sharded code paths.
      CpuDeviceOptions options;
      options.intra_op_threads = 2;
      return std::make_unique<CpuDevice>(options);
    };
    absl::MutexLock lock(&k->mu);
    k->kinds.push_back(std::move(cpu));
    return k;
  }();
  return kinds;
}

const KernelTestDevice* FindKind(const DeviceType& type) {
  DeviceKinds* kinds = Kinds();
  absl::MutexLock lock(&kinds->mu);
  for (const auto& k : kinds->kinds) {
    if (k->type == type) return k.get();
  }
  return nullptr;
}

}  // namespace

bool RegisterKernelTestDevice(KernelTestDevice device) {
  DeviceKinds* kinds = Kinds();
  absl::MutexLock lock(&kinds->mu);
  kinds->kinds.push_back(std::make_unique<KernelTestDevice>(std::move(device)));
  return true;
}

std::vector<DeviceType> KernelTestDeviceTypes() {
  DeviceKinds* kinds = Kinds();
  absl::MutexLock lock(&kinds->mu);
  std::vector<DeviceType> types;
  for (const auto& k : kinds->kinds) types.push_back(k->type);
  return types;
}

// --- TestNodeBuilder

TestNodeBuilder::TestNodeBuilder(absl::string_view name, absl::string_view op) {
  node_def_.set_name(std::string(name));
  node_def_.set_op(std::string(op));
}

TestNodeBuilder& TestNodeBuilder::Input(DataType dtype) {
  arg_types_.push_back(DataTypeVector{dtype});
  return *this;
}

TestNodeBuilder& TestNodeBuilder::Input(absl::Span<const DataType> dtypes) {
  arg_types_.emplace_back(dtypes.begin(), dtypes.end());
  return *this;
}

TestNodeBuilder& TestNodeBuilder::Input(int n, DataType dtype) {
  arg_types_.push_back(DataTypeVector(n, dtype));
  return *this;
}

TestNodeBuilder& TestNodeBuilder::Device(absl::string_view device) {
  node_def_.set_device(std::string(device));
  return *this;
}

Status TestNodeBuilder::Finalize(NodeDef* node_def) const {
  const OpDef* op_def = nullptr;
  MF_RETURN_IF_ERROR(
      OpRegistry::Global()->LookUpOpDef(node_def_.op(), &op_def));
  NodeDef node = node_def_;
  std::vector<DataTypeVector> arg_types = arg_types_;
  // Args not given take their types from the op (`x: float`) or from attrs
  // already set on the node (`T`, `N`, a `list(type)`).
  for (int a = static_cast<int>(arg_types.size()); a < op_def->input_arg_size();
       ++a) {
    const auto& arg = op_def->input_arg(a);
    const AttrSlice attrs(node);
    DataType type = arg.type();
    if (type == DT_INVALID && !arg.type_attr().empty()) {
      if (const AttrValue* v = attrs.Find(arg.type_attr())) type = v->type();
    }
    DataTypeVector types;
    if (!arg.type_list_attr().empty()) {
      if (const AttrValue* v = attrs.Find(arg.type_list_attr())) {
        for (int t : v->list().type()) types.push_back(DataType(t));
      } else {
        type = DT_INVALID;
      }
    } else if (!arg.number_attr().empty()) {
      const AttrValue* n = attrs.Find(arg.number_attr());
      if (n == nullptr) type = DT_INVALID;
      if (type != DT_INVALID) types.assign(n->i(), type);
    } else {
      types.push_back(type);
    }
    if (type == DT_INVALID && arg.type_list_attr().empty()) {
      return errors::InvalidArgument("TestNodeBuilder: input arg '", arg.name(),
                                     "' of ", op_def->name(),
                                     " needs an Input() or its attrs set");
    }
    arg_types.push_back(types);
  }
  int input_index = 0;
  for (const DataTypeVector& arg : arg_types) {
    for (size_t i = 0; i < arg.size(); ++i) {
      node.add_input(absl::StrCat("input", input_index++));
    }
  }
  MF_RETURN_IF_ERROR(InferAttrsFromInputTypes(*op_def, arg_types, &node));
  AddDefaultsToNodeDef(*op_def, &node);
  MF_RETURN_IF_ERROR(ValidateNodeDef(node, *op_def));
  *node_def = std::move(node);
  return OkStatus();
}

// --- OpsTestBase

OpsTestBase::OpsTestBase() : OpsTestBase(DEVICE_CPU) {}

OpsTestBase::OpsTestBase(const DeviceType& device_type) {
  UseDevice(device_type);
}

OpsTestBase::~OpsTestBase() {
  // The context refers to inputs and the kernel; it goes first.
  context_.reset();
  kernel_.reset();
}

void OpsTestBase::UseDevice(const DeviceType& device_type) {
  device_type_ = device_type;
  device_kind_ = FindKind(device_type);
  device_.reset();
  why_no_device_.clear();
  if (device_kind_ == nullptr) {
    why_no_device_ = absl::StrCat("no kernel-test device of type ", device_type,
                                  " is registered");
    return;
  }
  device_ = device_kind_->make(&why_no_device_);
}

TestNodeBuilder& OpsTestBase::MakeNode(absl::string_view op,
                                       absl::string_view name) {
  builder_ = std::make_unique<TestNodeBuilder>(name, op);
  return *builder_;
}

void OpsTestBase::set_node_def(const NodeDef& node_def) {
  builder_.reset();
  node_def_ = node_def;
}

Allocator* OpsTestBase::allocator() {
  if (allocator_ != nullptr) return allocator_;
  return device_ != nullptr ? device_->GetAllocator(AllocatorAttributes())
                            : cpu_allocator();
}

Status OpsTestBase::MakeOp() {
  if (device_ == nullptr) {
    return errors::Unavailable("No ", device_type_,
                               " device: ", why_no_device_);
  }
  if (builder_ != nullptr) {
    MF_RETURN_IF_ERROR(builder_->Finalize(&node_def_));
  }
  context_.reset();
  kernel_.reset();
  ClearInputs();
  Status s = CreateOpKernel(device_type_, device_.get(), allocator(), node_def_,
                            /*graph_def_version=*/0, &kernel_);
  if (!s.ok() && !absl::StrContains(s.message(), "{{node ")) {
    s = errors::AttachNodeContext(s, node_def_.name(), node_def_.op());
  }
  return s;
}

void OpsTestBase::AddInputTensor(const Tensor& host_tensor) {
  ASSERT_NE(kernel_, nullptr) << "call MakeOp() before adding inputs";
  const int index = static_cast<int>(inputs_.size());
  ASSERT_LT(index, kernel_->num_inputs()) << "too many inputs";
  const DataType expected = kernel_->input_type(index);
  ASSERT_EQ(host_tensor.dtype(), BaseType(expected))
      << "input " << index << " must be " << DataTypeString(expected);
  auto t = std::make_unique<Tensor>();
  if (device_kind_->to_device) {
    const Status s =
        device_kind_->to_device(device_.get(), host_tensor, t.get());
    ASSERT_TRUE(s.ok()) << s;
  } else {
    // A fresh buffer per input, so that only the test holds it and the
    // kernel may forward it (Note [Forwarding]).
    *t = host_tensor.DeepCopy();
  }
  inputs_.push_back(std::move(t));
}

const Tensor& OpsTestBase::GetInput(int i) const { return *inputs_.at(i); }

void OpsTestBase::ClearInputs() {
  context_.reset();
  inputs_.clear();
  input_values_.clear();
  host_outputs_.clear();
}

const DataTypeVector& OpsTestBase::output_types() const {
  return kernel_->output_types();
}

Status OpsTestBase::RunOpKernel() {
  if (kernel_ == nullptr) {
    return errors::FailedPrecondition("RunOpKernel before a successful MakeOp");
  }
  if (static_cast<int>(inputs_.size()) != kernel_->num_inputs()) {
    return errors::InvalidArgument("the kernel has ", kernel_->num_inputs(),
                                   " inputs but the test added ",
                                   inputs_.size());
  }
  context_.reset();
  host_outputs_.clear();
  input_values_.clear();
  for (const auto& t : inputs_) input_values_.emplace_back(t.get());

  params_ = std::make_unique<OpKernelContext::Params>();
  params_->device = device_.get();
  params_->op_kernel = kernel_.get();
  params_->inputs = input_values_;
  params_->cancellation_manager = &cancellation_;
  params_->allocator = allocator_;
  context_ = std::make_unique<OpKernelContext>(params_.get());

  if (AsyncOpKernel* async = kernel_->AsAsync()) {
    absl::Notification done;
    device_->ComputeAsync(async, context_.get(), [&done] { done.Notify(); });
    done.WaitForNotification();
  } else {
    device_->Compute(kernel_.get(), context_.get());
  }
  MF_RETURN_IF_ERROR(device_->Sync());
  return errors::AttachNodeContext(context_->status(), kernel_->name(),
                                   kernel_->type_string());
}

Tensor* OpsTestBase::GetOutput(int i) {
  if (context_ == nullptr) return nullptr;
  Tensor* out = context_->mutable_output(i);
  if (out == nullptr || !device_kind_->to_host) return out;
  host_outputs_.resize(context_->num_outputs());
  if (host_outputs_[i] == nullptr) {
    auto host = std::make_unique<Tensor>();
    const Status s = device_kind_->to_host(device_.get(), *out, host.get());
    EXPECT_TRUE(s.ok()) << s;
    host_outputs_[i] = std::move(host);
  }
  return host_outputs_[i].get();
}

void OpsTestBaseP::SetUp() {
  UseDevice(GetParam());
  if (device() == nullptr) {
    GTEST_SKIP() << "skipping on " << GetParam() << ": " << why_no_device();
  }
}

}  // namespace test
}  // namespace minflow
