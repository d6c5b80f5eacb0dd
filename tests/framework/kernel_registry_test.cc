#include "minflow/framework/kernel_registry.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/framework/device.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/kernel_def.pb.h"
#include "minflow/node_def.pb.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;

// Kernels that only say which registration built them.
template <int kTag>
class TagKernel : public OpKernel {
 public:
  explicit TagKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {}
};

class FailingConstructorKernel : public OpKernel {
 public:
  explicit FailingConstructorKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES(ctx, false,
                errors::InvalidArgument("bad attr for this kernel"));
  }
  void Compute(OpKernelContext* ctx) override {}
};

// Registered before its op on purpose: static initialisers run in no fixed
// order, so kernels must not need their op at registration time.
REGISTER_KERNEL_BUILDER(Name("KrEarlyKernel").Device(DEVICE_CPU), TagKernel<0>);
REGISTER_OP("KrEarlyKernel").Output("y: float");

REGISTER_OP("KrTyped").Input("x: T").Output("y: T").Attr(
    "T: {float, int32, double, int64}");
REGISTER_KERNEL_BUILDER(
    Name("KrTyped").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    TagKernel<1>);
REGISTER_KERNEL_BUILDER(Name("KrTyped")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", {DT_INT32, DT_INT64}),
                        TagKernel<2>);

REGISTER_OP("KrDefaultType").Output("y: T").Attr("T: type = DT_INT32");
REGISTER_KERNEL_BUILDER(
    Name("KrDefaultType").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"),
    TagKernel<3>);

REGISTER_OP("KrLabeled").Output("y: float");
REGISTER_KERNEL_BUILDER(Name("KrLabeled").Device(DEVICE_CPU), TagKernel<4>);
REGISTER_KERNEL_BUILDER(Name("KrLabeled").Device(DEVICE_CPU).Label("fast"),
                        TagKernel<5>);

REGISTER_OP("KrPriority").Output("y: float");
REGISTER_KERNEL_BUILDER(Name("KrPriority").Device(DEVICE_CPU), TagKernel<6>);
REGISTER_KERNEL_BUILDER(Name("KrPriority").Device(DEVICE_CPU).Priority(5),
                        TagKernel<7>);
REGISTER_KERNEL_BUILDER(Name("KrPriority").Device(DEVICE_CPU).Priority(2),
                        TagKernel<8>);

REGISTER_OP("KrTie").Output("y: float");
REGISTER_KERNEL_BUILDER(Name("KrTie").Device(DEVICE_CPU).Priority(1),
                        TagKernel<9>);
REGISTER_KERNEL_BUILDER(Name("KrTie").Device(DEVICE_CPU).Priority(1),
                        TagKernel<10>);

REGISTER_OP("KrTieBelowWinner").Output("y: float");
REGISTER_KERNEL_BUILDER(Name("KrTieBelowWinner").Device(DEVICE_CPU),
                        TagKernel<25>);
REGISTER_KERNEL_BUILDER(Name("KrTieBelowWinner").Device(DEVICE_CPU),
                        TagKernel<26>);
REGISTER_KERNEL_BUILDER(Name("KrTieBelowWinner").Device(DEVICE_CPU).Priority(5),
                        TagKernel<27>);

REGISTER_OP("KrCpuOnly").Output("y: float");
REGISTER_KERNEL_BUILDER(Name("KrCpuOnly").Device(DEVICE_CPU), TagKernel<11>);

REGISTER_OP("KrNoKernels").Output("y: float");

REGISTER_OP("KrAnyDevice").Output("y: float");
REGISTER_KERNEL_BUILDER(Name("KrAnyDevice").Device(DEVICE_DEFAULT),
                        TagKernel<12>);
REGISTER_KERNEL_BUILDER(Name("KrAnyDevice").Device(DEVICE_CPU), TagKernel<13>);

REGISTER_OP("KrTwoDevices").Output("y: float");
REGISTER_KERNEL_BUILDER(Name("KrTwoDevices").Device(DEVICE_CPU), TagKernel<14>);
REGISTER_KERNEL_BUILDER(Name("KrTwoDevices").Device(DEVICE_GPU).Priority(1),
                        TagKernel<15>);

REGISTER_OP("KrIntAttr")
    .Output("y: float")
    .Attr("mode: int")
    .Attr("name_attr: string = 'a'");
REGISTER_KERNEL_BUILDER(
    Name("KrIntAttr").Device(DEVICE_CPU).AttrConstraint("mode", int64_t{1}),
    TagKernel<16>);
REGISTER_KERNEL_BUILDER(Name("KrIntAttr")
                            .Device(DEVICE_CPU)
                            .AttrConstraint("mode", int64_t{2})
                            .AttrConstraint("name_attr", "b"),
                        TagKernel<17>);

REGISTER_OP("KrTypeList").Input("x: T").Attr("T: list(type)");
REGISTER_KERNEL_BUILDER(Name("KrTypeList")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", {DT_FLOAT, DT_INT32}),
                        TagKernel<18>);

REGISTER_OP("KrHostMemory")
    .Input("x: float")
    .Input("shape: int32")
    .Output("y: float");
REGISTER_KERNEL_BUILDER(
    Name("KrHostMemory").Device(DEVICE_GPU).HostMemory("shape"), TagKernel<19>);
REGISTER_KERNEL_BUILDER(Name("KrHostMemory").Device(DEVICE_CPU), TagKernel<20>);

REGISTER_OP("KrFailingCtor").Output("y: float");
REGISTER_KERNEL_BUILDER(Name("KrFailingCtor").Device(DEVICE_CPU),
                        FailingConstructorKernel);

// Broken registrations (Note [Lazy kernel validation]).
REGISTER_OP("KrBadTypeConstraint").Output("y: float").Attr("N: int");
REGISTER_KERNEL_BUILDER(
    Name("KrBadTypeConstraint").Device(DEVICE_CPU).TypeConstraint<float>("N"),
    TagKernel<21>);
REGISTER_OP("KrBadHostMemory").Output("y: float");
REGISTER_KERNEL_BUILDER(
    Name("KrBadHostMemory").Device(DEVICE_CPU).HostMemory("nope"),
    TagKernel<22>);
REGISTER_OP("KrBadConstraintAttr").Output("y: float");
REGISTER_KERNEL_BUILDER(
    Name("KrBadConstraintAttr").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    TagKernel<23>);
REGISTER_KERNEL_BUILDER(Name("KrNoSuchOp").Device(DEVICE_CPU), TagKernel<24>);

NodeDef MakeNode(const std::string& op, const std::string& name = "n") {
  NodeDef node;
  node.set_name(name);
  node.set_op(op);
  return node;
}

NodeDef Typed(const std::string& op, DataType t) {
  NodeDef node = MakeNode(op);
  node.add_input("x");
  AddNodeAttr("T", t, &node);
  return node;
}

std::string ClassFor(const DeviceType& device, const NodeDef& node) {
  std::string class_name;
  const KernelDef* def = nullptr;
  const Status s = FindKernelDef(device, node, &def, &class_name);
  EXPECT_TRUE(s.ok()) << s;
  return class_name;
}

TEST(KernelRegistryTest, TypeConstraintSelectsTheKernelForTheNodesType) {
  EXPECT_EQ(ClassFor(DEVICE_CPU, Typed("KrTyped", DT_FLOAT)), "TagKernel<1>");
  EXPECT_EQ(ClassFor(DEVICE_CPU, Typed("KrTyped", DT_INT32)), "TagKernel<2>");
  EXPECT_EQ(ClassFor(DEVICE_CPU, Typed("KrTyped", DT_INT64)), "TagKernel<2>");
}

TEST(KernelRegistryTest, NoMatchingTypeGivesTensorFlowsErrorListingKernels) {
  const Status s =
      FindKernelDef(DEVICE_CPU, Typed("KrTyped", DT_DOUBLE), nullptr, nullptr);
  EXPECT_THAT(
      s, StatusIs(absl::StatusCode::kNotFound,
                  AllOf(HasSubstr("No registered 'KrTyped' OpKernel for 'CPU' "
                                  "devices compatible with node {{node n}}"),
                        HasSubstr("(OpKernel was found, but attributes didn't "
                                  "match) Requested Attributes: T=DT_DOUBLE"),
                        HasSubstr(".  Registered:  device='CPU'; T in "
                                  "[DT_FLOAT]\n  device='CPU'; T in "
                                  "[DT_INT32, DT_INT64]\n"))));
}

TEST(KernelRegistryTest, NoKernelForTheDeviceSaysSoWithoutAttrMismatch) {
  const Status s =
      FindKernelDef(DEVICE_GPU, MakeNode("KrCpuOnly"), nullptr, nullptr);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kNotFound,
                          AllOf(HasSubstr("No registered 'KrCpuOnly' OpKernel "
                                          "for 'GPU' devices compatible with "
                                          "node {{node n}}"),
                                Not(HasSubstr("attributes didn't match")),
                                HasSubstr("Registered:  device='CPU'\n"))));
  EXPECT_THAT(
      FindKernelDef(DEVICE_CPU, MakeNode("KrNoKernels"), nullptr, nullptr),
      StatusIs(absl::StatusCode::kNotFound,
               HasSubstr("Registered:  <no registered kernels>\n")));
  EXPECT_FALSE(KernelDefAvailable(DEVICE_GPU, MakeNode("KrCpuOnly")));
  EXPECT_TRUE(KernelDefAvailable(DEVICE_CPU, MakeNode("KrCpuOnly")));
}

TEST(KernelRegistryTest, MissingAttrTakesTheOpsDefaultWhenMatching) {
  EXPECT_EQ(ClassFor(DEVICE_CPU, MakeNode("KrDefaultType")), "TagKernel<3>");
  NodeDef node = MakeNode("KrDefaultType");
  AddNodeAttr("T", DT_FLOAT, &node);
  EXPECT_THAT(FindKernelDef(DEVICE_CPU, node, nullptr, nullptr),
              StatusIs(absl::StatusCode::kNotFound));
}

TEST(KernelRegistryTest, KernelAttrSelectsTheLabel) {
  EXPECT_EQ(ClassFor(DEVICE_CPU, MakeNode("KrLabeled")), "TagKernel<4>");
  NodeDef fast = MakeNode("KrLabeled");
  AddNodeAttr("_kernel", "fast", &fast);
  EXPECT_EQ(ClassFor(DEVICE_CPU, fast), "TagKernel<5>");
  NodeDef other = MakeNode("KrLabeled");
  AddNodeAttr("_kernel", "slow", &other);
  EXPECT_THAT(FindKernelDef(DEVICE_CPU, other, nullptr, nullptr),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("device='CPU'; label='fast'")));
}

TEST(KernelRegistryTest, HighestPriorityWins) {
  EXPECT_EQ(ClassFor(DEVICE_CPU, MakeNode("KrPriority")), "TagKernel<7>");
}

TEST(KernelRegistryTest, EqualPrioritiesAreAnError) {
  EXPECT_THAT(
      FindKernelDef(DEVICE_CPU, MakeNode("KrTie"), nullptr, nullptr),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("Multiple OpKernel registrations match NodeDef "
                               "at the same priority '{{node n}}': "),
                     HasSubstr("op: \"KrTie\" device_type: \"CPU\" priority: "
                               "1"))));
}

TEST(KernelRegistryTest, TieBelowTheWinningPriorityIsNoError) {
  EXPECT_EQ(ClassFor(DEVICE_CPU, MakeNode("KrTieBelowWinner")),
            "TagKernel<27>");
}

TEST(KernelRegistryTest, DefaultDeviceKernelIsTheFallback) {
  EXPECT_EQ(ClassFor(DEVICE_CPU, MakeNode("KrAnyDevice")), "TagKernel<13>");
  EXPECT_EQ(ClassFor(DEVICE_GPU, MakeNode("KrAnyDevice")), "TagKernel<12>");
}

TEST(KernelRegistryTest, IntAndStringConstraints) {
  NodeDef one = MakeNode("KrIntAttr");
  AddNodeAttr("mode", 1, &one);
  EXPECT_EQ(ClassFor(DEVICE_CPU, one), "TagKernel<16>");
  NodeDef two = MakeNode("KrIntAttr");
  AddNodeAttr("mode", 2, &two);
  // name_attr defaults to 'a', which kernel 17 does not allow.
  EXPECT_THAT(FindKernelDef(DEVICE_CPU, two, nullptr, nullptr),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("attributes didn't match")));
  AddNodeAttr("name_attr", "b", &two);
  EXPECT_EQ(ClassFor(DEVICE_CPU, two), "TagKernel<17>");
}

TEST(KernelRegistryTest, ListTypeConstraintNeedsEveryElementAllowed) {
  NodeDef ok = MakeNode("KrTypeList");
  AddNodeAttr("T", std::vector<DataType>{DT_FLOAT, DT_INT32}, &ok);
  EXPECT_EQ(ClassFor(DEVICE_CPU, ok), "TagKernel<18>");
  NodeDef bad = MakeNode("KrTypeList");
  AddNodeAttr("T", std::vector<DataType>{DT_FLOAT, DT_DOUBLE}, &bad);
  EXPECT_THAT(FindKernelDef(DEVICE_CPU, bad, nullptr, nullptr),
              StatusIs(absl::StatusCode::kNotFound));
}

TEST(KernelRegistryTest, ConstraintOnAttrOfTheWrongKindInTheNodeIsAnError) {
  NodeDef node = MakeNode("KrTyped");
  AddNodeAttr("T", 3, &node);
  EXPECT_THAT(FindKernelDef(DEVICE_CPU, node, nullptr, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("that does not have type 'type' or "
                                 "'list(type)' in NodeDef")));
}

TEST(KernelRegistryTest, KernelRegisteredBeforeItsOpIsFound) {
  EXPECT_EQ(ClassFor(DEVICE_CPU, MakeNode("KrEarlyKernel")), "TagKernel<0>");
}

TEST(KernelRegistryTest, SupportedDeviceTypesAreSortedByPriority) {
  PrioritizedDeviceTypeVector types;
  MF_ASSERT_OK(SupportedDeviceTypesForNode({DEVICE_CPU, DEVICE_GPU},
                                           MakeNode("KrTwoDevices"), &types));
  EXPECT_THAT(types, ElementsAre(Pair(DEVICE_GPU, 1), Pair(DEVICE_CPU, 0)));
  MF_ASSERT_OK(SupportedDeviceTypesForNode({DEVICE_CPU, DEVICE_GPU},
                                           MakeNode("KrCpuOnly"), &types));
  EXPECT_THAT(types, ElementsAre(Pair(DEVICE_CPU, 0)));
  EXPECT_THAT(
      SupportedDeviceTypesForNode({DEVICE_CPU}, MakeNode("KrNoSuch"), &types),
      StatusIs(absl::StatusCode::kNotFound,
               HasSubstr("Op type not registered 'KrNoSuch'")));
}

TEST(KernelRegistryTest, HostMemoryArgsAreHostMemoryOnTheirDevice) {
  NodeDef node = MakeNode("KrHostMemory");
  node.add_input("x");
  node.add_input("shape");
  MemoryTypeVector in;
  MemoryTypeVector out;
  MF_ASSERT_OK(
      MemoryTypesForNode(OpRegistry::Global(), DEVICE_GPU, node, &in, &out));
  EXPECT_THAT(in, ElementsAre(DEVICE_MEMORY, HOST_MEMORY));
  EXPECT_THAT(out, ElementsAre(DEVICE_MEMORY));
  MF_ASSERT_OK(
      MemoryTypesForNode(OpRegistry::Global(), DEVICE_CPU, node, &in, &out));
  EXPECT_THAT(in, ElementsAre(DEVICE_MEMORY, DEVICE_MEMORY));
}

TEST(KernelRegistryTest, CreateOpKernelReturnsTheConstructorsStatus) {
  CpuDevice device;
  std::unique_ptr<OpKernel> kernel;
  EXPECT_THAT(
      CreateOpKernel(DEVICE_CPU, &device, nullptr, MakeNode("KrFailingCtor"), 0,
                     &kernel),
      StatusIs(absl::StatusCode::kInvalidArgument, "bad attr for this kernel"));
  EXPECT_EQ(kernel, nullptr);

  MF_ASSERT_OK(CreateOpKernel(DEVICE_CPU, &device, nullptr,
                              Typed("KrTyped", DT_FLOAT), 0, &kernel));
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->type_string(), "KrTyped");
  EXPECT_EQ(kernel->name(), "n");

  Status status;
  std::unique_ptr<OpKernel> old_form = CreateOpKernel(
      DEVICE_CPU, &device, nullptr, Typed("KrTyped", DT_INT32), 0, &status);
  MF_EXPECT_OK(status);
  EXPECT_NE(old_form, nullptr);
}

TEST(KernelRegistryTest, CreateOpKernelFillsDefaultsAndValidatesTheNode) {
  CpuDevice device;
  std::unique_ptr<OpKernel> kernel;
  MF_ASSERT_OK(CreateOpKernel(DEVICE_CPU, &device, nullptr,
                              MakeNode("KrDefaultType"), 0, &kernel));
  ASSERT_NE(AttrSlice(kernel->def()).Find("T"), nullptr);
  EXPECT_EQ(AttrSlice(kernel->def()).Find("T")->type(), DT_INT32);

  NodeDef no_input = MakeNode("KrTyped");
  AddNodeAttr("T", DT_FLOAT, &no_input);
  EXPECT_THAT(
      CreateOpKernel(DEVICE_CPU, &device, nullptr, no_input, 0, &kernel),
      StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(CreateOpKernel(DEVICE_CPU, &device, nullptr, MakeNode("KrNoSuch"),
                             0, &kernel),
              StatusIs(absl::StatusCode::kNotFound,
                       AllOf(HasSubstr("Op type not registered 'KrNoSuch'"),
                             HasSubstr("for node: {{node n}}"))));
  EXPECT_THAT(CreateOpKernel(DEVICE_CPU, &device, nullptr,
                             Typed("KrTyped", DT_DOUBLE), 0, &kernel),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("No registered 'KrTyped' OpKernel for 'CPU' "
                                 "devices")));
}

TEST(KernelRegistryTest, TypeConstraintOnANonTypeAttrIsARegistrationError) {
  EXPECT_THAT(FindKernelDef(DEVICE_CPU, MakeNode("KrBadTypeConstraint"),
                            nullptr, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("type constraint on attr 'N' of op "
                                       "'KrBadTypeConstraint'"),
                             HasSubstr("but 'N' has type 'int', not 'type' or "
                                       "'list(type)'"),
                             HasSubstr("TagKernel<21>"))));
}

TEST(KernelRegistryTest, HostMemoryOnAnUnknownArgIsARegistrationError) {
  EXPECT_THAT(
      FindKernelDef(DEVICE_CPU, MakeNode("KrBadHostMemory"), nullptr, nullptr),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("HostMemory arg 'nope' not found in OpDef")));
}

TEST(KernelRegistryTest, RegistrationErrorsAreListed) {
  std::vector<std::string> messages;
  for (const Status& s : KernelRegistrationErrors()) {
    messages.emplace_back(s.message());
  }
  EXPECT_THAT(messages,
              ::testing::IsSupersetOf(
                  {HasSubstr("'N' of op 'KrBadTypeConstraint'"),
                   HasSubstr("HostMemory arg 'nope'"),
                   HasSubstr("constraint on attr 'T', which op "
                             "'KrBadConstraintAttr' does not have")}));
  const Status all = ValidateKernelRegistrations(*OpRegistry::Global());
  EXPECT_THAT(all, StatusIs(absl::StatusCode::kInvalidArgument,
                            AllOf(HasSubstr("invalid kernel registration(s)"),
                                  HasSubstr("for unknown op: KrNoSuchOp"),
                                  HasSubstr("HostMemory arg 'nope'"))));
}

TEST(KernelRegistryTest, ListsRegisteredKernels) {
  const KernelList for_op = GetRegisteredKernelsForOp("KrTyped");
  ASSERT_EQ(for_op.kernel_size(), 2);
  EXPECT_EQ(for_op.kernel(0).op(), "KrTyped");
  EXPECT_EQ(for_op.kernel(0).constraint(0).name(), "T");
  EXPECT_EQ(KernelsRegisteredForOp("KrLabeled"),
            "  device='CPU'\n  device='CPU'; label='fast'\n");
  const KernelList all = GetAllRegisteredKernels();
  int tie = 0;
  for (const KernelDef& def : all.kernel()) tie += def.op() == "KrTie";
  EXPECT_EQ(tie, 2);
  // This test's own GPU kernels (CUDA builds register real ones too).
  const KernelList gpu = GetFilteredRegisteredKernels([](const KernelDef& def) {
    return def.device_type() == DEVICE_GPU && absl::StartsWith(def.op(), "Kr");
  });
  EXPECT_EQ(gpu.kernel_size(), 2);
}

TEST(KernelDefBuilderTest, BuildsTheKernelDef) {
  std::unique_ptr<const KernelDef> def(
      KernelDefBuilder("Op")
          .Device(DEVICE_CPU)
          .TypeConstraint<float>("T")
          .TypeConstraint("T", DT_DOUBLE)
          .TypeConstraint("U", {DT_INT32, DT_INT64})
          .HostMemory("shape")
          .Label("l")
          .Priority(3)
          .Build());
  EXPECT_EQ(def->ShortDebugString(),
            "op: \"Op\" device_type: \"CPU\" constraint { name: \"T\" "
            "allowed_values { list { type: DT_FLOAT type: DT_DOUBLE } } } "
            "constraint { name: \"U\" allowed_values { list { type: DT_INT32 "
            "type: DT_INT64 } } } host_memory_arg: \"shape\" label: \"l\" "
            "priority: 3");
}

}  // namespace
}  // namespace minflow
