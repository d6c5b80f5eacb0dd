#include "minflow/framework/kernel_def_builder.h"

#include "minflow/core/logging.h"
#include "minflow/kernel_def.pb.h"

namespace minflow {
namespace {

// Constraints on one attr accumulate into one AttrConstraint entry, so
// TypeConstraint("T", DT_FLOAT) then TypeConstraint("T", DT_DOUBLE) allows
// both rather than producing two constraints no node could meet.
AttrValue* ConstraintValues(KernelDef* def, const char* attr_name) {
  for (auto& c : *def->mutable_constraint()) {
    if (c.name() == attr_name) return c.mutable_allowed_values();
  }
  KernelDef::AttrConstraint* c = def->add_constraint();
  c->set_name(attr_name);
  return c->mutable_allowed_values();
}

}  // namespace

KernelDefBuilder::KernelDefBuilder(const char* op_name)
    : kernel_def_(std::make_unique<KernelDef>()) {
  kernel_def_->set_op(op_name);
}

KernelDefBuilder::~KernelDefBuilder() = default;

KernelDefBuilder& KernelDefBuilder::Device(const char* device_type) {
  kernel_def_->set_device_type(device_type);
  return *this;
}

KernelDefBuilder& KernelDefBuilder::TypeConstraint(
    const char* attr_name, absl::Span<const DataType> allowed) {
  auto* list = ConstraintValues(kernel_def_.get(), attr_name)->mutable_list();
  for (DataType dt : allowed) list->add_type(dt);
  return *this;
}

KernelDefBuilder& KernelDefBuilder::TypeConstraint(const char* attr_name,
                                                   DataType allowed) {
  return TypeConstraint(attr_name, absl::Span<const DataType>(&allowed, 1));
}

KernelDefBuilder& KernelDefBuilder::AttrConstraint(
    const char* attr_name, absl::Span<const int64_t> allowed) {
  auto* list = ConstraintValues(kernel_def_.get(), attr_name)->mutable_list();
  for (int64_t v : allowed) list->add_i(v);
  return *this;
}

KernelDefBuilder& KernelDefBuilder::AttrConstraint(const char* attr_name,
                                                   int64_t allowed) {
  return AttrConstraint(attr_name, absl::Span<const int64_t>(&allowed, 1));
}

KernelDefBuilder& KernelDefBuilder::AttrConstraint(
    const char* attr_name, absl::Span<const std::string> allowed) {
  auto* list = ConstraintValues(kernel_def_.get(), attr_name)->mutable_list();
  for (const std::string& v : allowed) list->add_s(v);
  return *this;
}

KernelDefBuilder& KernelDefBuilder::AttrConstraint(const char* attr_name,
                                                   const std::string& allowed) {
  return AttrConstraint(attr_name, absl::Span<const std::string>(&allowed, 1));
}

KernelDefBuilder& KernelDefBuilder::AttrConstraint(const char* attr_name,
                                                   const char* allowed) {
  return AttrConstraint(attr_name, std::string(allowed));
}

KernelDefBuilder& KernelDefBuilder::AttrConstraint(const char* attr_name,
                                                   bool allowed) {
  ConstraintValues(kernel_def_.get(), attr_name)
      ->mutable_list()
      ->add_b(allowed);
  return *this;
}

KernelDefBuilder& KernelDefBuilder::HostMemory(const char* arg_name) {
  kernel_def_->add_host_memory_arg(arg_name);
  return *this;
}

KernelDefBuilder& KernelDefBuilder::Label(const char* label) {
  kernel_def_->set_label(label);
  return *this;
}

KernelDefBuilder& KernelDefBuilder::Priority(int32_t priority) {
  kernel_def_->set_priority(priority);
  return *this;
}

const KernelDef* KernelDefBuilder::Build() {
  MF_CHECK(kernel_def_ != nullptr) << "KernelDefBuilder::Build called twice";
  return kernel_def_.release();
}

}  // namespace minflow
