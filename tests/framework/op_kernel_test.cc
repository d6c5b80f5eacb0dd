#define EIGEN_USE_THREADS
#include "minflow/framework/op_kernel.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/op.h"
#include "minflow/node_def.pb.h"
#include "minflow/tensor_shape.pb.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minflow {
namespace {

using ::minflow::test::OpsTestBase;
using ::minflow::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// --- Test-only ops and kernels -----------------------------------------------

REGISTER_OP("OkAttrs")
    .Output("y: float")
    .Attr("s: string")
    .Attr("i: int")
    .Attr("f: float")
    .Attr("b: bool")
    .Attr("t: type")
    .Attr("sh: shape")
    .Attr("te: tensor")
    .Attr("ls: list(string)")
    .Attr("li: list(int)")
    .Attr("lf: list(float)")
    .Attr("lt: list(type)")
    .Attr("lsh: list(shape)")
    .Attr("d: int = 7");

class AttrsKernel : public OpKernel {
 public:
  explicit AttrsKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("s", &s_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("i", &i_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("i", &i32_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("f", &f_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("b", &b_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("t", &t_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("sh", &sh_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("sh", &psh_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("te", &te_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("ls", &ls_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("li", &li_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("li", &li32_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("lf", &lf_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("lt", &lt_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("lsh", &lsh_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("d", &d_));
    has_d_ = ctx->HasAttr("d");
    has_missing_ = ctx->HasAttr("missing");
    missing_status_ = ctx->GetAttr("missing", &missing_);
    wrong_type_status_ = ctx->GetAttr("s", &missing_);
  }
  void Compute(OpKernelContext* ctx) override {}

  std::string s_;
  int64_t i_ = 0;
  int32_t i32_ = 0;
  float f_ = 0;
  bool b_ = false;
  DataType t_ = DT_INVALID;
  TensorShape sh_;
  PartialTensorShape psh_;
  Tensor te_;
  std::vector<std::string> ls_;
  std::vector<int64_t> li_;
  std::vector<int32_t> li32_;
  std::vector<float> lf_;
  DataTypeVector lt_;
  std::vector<TensorShape> lsh_;
  int64_t d_ = 0;
  bool has_d_ = false;
  bool has_missing_ = true;
  int64_t missing_ = 0;
  Status missing_status_;
  Status wrong_type_status_;
};
REGISTER_KERNEL_BUILDER(Name("OkAttrs").Device(DEVICE_CPU), AttrsKernel);

// y = x + 1 through an Eigen expression on the device's thread pool; fails
// with InvalidArgument for negative `limit` inputs (OP_REQUIRES checks).
REGISTER_OP("OkAddOne").Input("x: float").Output("y: float");
class AddOneKernel : public OpKernel {
 public:
  explicit AddOneKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, x.NumElements() < 1000000,
                errors::InvalidArgument("x too large"));
    Tensor* y = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
    y->flat<float>().device(ctx->eigen_device<Eigen::ThreadPoolDevice>()) =
        x.flat<float>() + 1.0f;
  }
};
REGISTER_KERNEL_BUILDER(Name("OkAddOne").Device(DEVICE_CPU), AddOneKernel);

// Counts how far Compute got, to prove OP_REQUIRES returns early.
std::atomic<int> g_after_check{0};
REGISTER_OP("OkEarlyReturn").Input("x: int32");
class EarlyReturnKernel : public OpKernel {
 public:
  explicit EarlyReturnKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const int32_t x = ctx->input(0).scalar<int32_t>()();
    OP_REQUIRES(ctx, x >= 0,
                errors::InvalidArgument("x must be >= 0, but got ", x));
    OP_REQUIRES_OK(ctx, x == 7 ? errors::OutOfRange("seven") : OkStatus());
    g_after_check.fetch_add(1);
  }
};
REGISTER_KERNEL_BUILDER(Name("OkEarlyReturn").Device(DEVICE_CPU),
                        EarlyReturnKernel);

// Forwarding probes: x -> y with a reshape to [n], and x -> z with a
// different dtype; the "host" label registers y in host memory.
REGISTER_OP("OkForward")
    .Input("x: float")
    .Output("y: float")
    .Output("z: int32");
class ForwardKernel : public OpKernel {
 public:
  explicit ForwardKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* z = nullptr;
    int forwarded_z = 0;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0}, 1, x.shape(), &z, &forwarded_z));
    OP_REQUIRES(ctx, forwarded_z == -1,
                errors::Internal("forwarded across dtypes"));
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0}, 0, TensorShape({x.NumElements()}), &y));
    y->flat<float>().setConstant(5.0f);
  }
};
REGISTER_KERNEL_BUILDER(Name("OkForward").Device(DEVICE_CPU), ForwardKernel);
REGISTER_KERNEL_BUILDER(
    Name("OkForward").Device(DEVICE_CPU).Label("host").HostMemory("y"),
    ForwardKernel);

// Named access to list and single args.
REGISTER_OP("OkNamed")
    .Input("a: float")
    .Input("b: N * int32")
    .Output("c: float")
    .Output("d: N * int32")
    .Attr("N: int");
class NamedKernel : public OpKernel {
 public:
  explicit NamedKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor* a = nullptr;
    OP_REQUIRES_OK(ctx, ctx->input("a", &a));
    OpInputList b;
    OP_REQUIRES_OK(ctx, ctx->input_list("b", &b));
    OpOutputList d;
    OP_REQUIRES_OK(ctx, ctx->output_list("d", &d));
    int i = 0;
    for (const Tensor& t : b) d.set(i++, t);
    OP_REQUIRES_OK(ctx, ctx->set_output("c", *a));
    const Tensor* unused = nullptr;
    list_as_single_ = ctx->input("b", &unused);
    unknown_name_ = ctx->input("nope", &unused);
  }
  // Written by one test thread only.
  mutable Status list_as_single_;
  mutable Status unknown_name_;
};
REGISTER_KERNEL_BUILDER(Name("OkNamed").Device(DEVICE_CPU), NamedKernel);

// Allocation probes driven by the `what` attr.
REGISTER_OP("OkAlloc")
    .Output("y: float")
    .Attr("what: string")
    .Attr("n: int = 1000000");
class AllocKernel : public OpKernel {
 public:
  explicit AllocKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("what", &what_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("n", &n_));
  }
  void Compute(OpKernelContext* ctx) override {
    Tensor* y = nullptr;
    if (what_ == "output") {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({n_}), &y));
    } else if (what_ == "by_name") {
      OP_REQUIRES_OK(ctx, ctx->allocate_output("y", TensorShape({n_}), &y));
      Tensor temp;
      OP_REQUIRES_OK(ctx,
                     ctx->allocate_temp(DT_INT32, TensorShape({n_}), &temp));
    } else if (what_ == "bad_index") {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(3, TensorShape({n_}), &y));
    } else if (what_ == "wrong_dtype") {
      ctx->set_output(0, Tensor(int32_t{1}));
    }
  }

 private:
  std::string what_;
  int64_t n_ = 0;
};
REGISTER_KERNEL_BUILDER(Name("OkAlloc").Device(DEVICE_CPU), AllocKernel);

// Spins until cancelled (or a timeout, so a bug cannot hang the suite).
REGISTER_OP("OkSpin").Output("y: float");
std::atomic<bool> g_spinning{false};
class SpinKernel : public OpKernel {
 public:
  explicit SpinKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    g_spinning = true;
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!ctx->IsCancelled()) {
      OP_REQUIRES(ctx, std::chrono::steady_clock::now() < deadline,
                  errors::DeadlineExceeded("never cancelled"));
      std::this_thread::yield();
    }
    ctx->SetStatus(errors::Cancelled("Step was cancelled"));
  }
};
REGISTER_KERNEL_BUILDER(Name("OkSpin").Device(DEVICE_CPU), SpinKernel);

// Finishes on another thread; fails through OP_REQUIRES_ASYNC when x < 0.
REGISTER_OP("OkAsync").Input("x: float").Output("y: float");
class AsyncKernel : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES_ASYNC(ctx, x.flat<float>()(0) >= 0,
                      errors::InvalidArgument("x must be >= 0"), done);
    std::thread([ctx, done = std::move(done), x]() {
      Tensor* y = nullptr;
      OP_REQUIRES_OK_ASYNC(ctx, ctx->allocate_output(0, x.shape(), &y), done);
      y->flat<float>() = x.flat<float>() * 2.0f;
      done();
    }).detach();
  }
};
REGISTER_KERNEL_BUILDER(Name("OkAsync").Device(DEVICE_CPU), AsyncKernel);

// An async kernel wrongly using the synchronous macro.
REGISTER_OP("OkAsyncMisuse").Output("y: float");
class AsyncMisuseKernel : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    OP_REQUIRES(ctx, false, errors::Internal("never"));
    done();
  }
};
REGISTER_KERNEL_BUILDER(Name("OkAsyncMisuse").Device(DEVICE_CPU),
                        AsyncMisuseKernel);

REGISTER_OP("OkSignature").Input("x: T").Output("y: T").Attr("T: type");
class SignatureKernel : public OpKernel {
 public:
  explicit SignatureKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->MatchSignature({DT_FLOAT}, {DT_FLOAT}));
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_temp(DT_FLOAT, TensorShape({4}), &constant_));
  }
  void Compute(OpKernelContext* ctx) override {}
  bool IsExpensive() override { return false; }

 private:
  Tensor constant_;
};
REGISTER_KERNEL_BUILDER(Name("OkSignature").Device(DEVICE_CPU),
                        SignatureKernel);

// --- Tests -------------------------------------------------------------------

class OpKernelTest : public OpsTestBase {};

TEST_F(OpKernelTest, GetAttrReadsEveryAttrType) {
  TensorShapeProto shape;
  shape.add_dim()->set_size(2);
  shape.add_dim()->set_size(3);
  MakeNode("OkAttrs", "attrs")
      .Attr("s", "hello")
      .Attr("i", int64_t{-4})
      .Attr("f", 2.5f)
      .Attr("b", true)
      .Attr("t", DT_DOUBLE)
      .Attr("sh", shape)
      .Attr("te", test::AsTensor<int32_t>({1, 2, 3}))
      .Attr("ls", std::vector<std::string>{"a", "b"})
      .Attr("li", {1, 2, 3})
      .Attr("lf", std::vector<float>{0.5f})
      .Attr("lt", std::vector<DataType>{DT_INT32, DT_BOOL})
      .Attr("lsh", std::vector<TensorShape>{TensorShape({1}), TensorShape()});
  MF_ASSERT_OK(MakeOp());
  auto* k = dynamic_cast<AttrsKernel*>(op_kernel());
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->s_, "hello");
  EXPECT_EQ(k->i_, -4);
  EXPECT_EQ(k->i32_, -4);
  EXPECT_EQ(k->f_, 2.5f);
  EXPECT_TRUE(k->b_);
  EXPECT_EQ(k->t_, DT_DOUBLE);
  EXPECT_EQ(k->sh_, TensorShape({2, 3}));
  EXPECT_EQ(k->psh_.DebugString(), "[2,3]");
  test::ExpectTensorEqual<int32_t>(k->te_, test::AsTensor<int32_t>({1, 2, 3}));
  EXPECT_THAT(k->ls_, ElementsAre("a", "b"));
  EXPECT_THAT(k->li_, ElementsAre(1, 2, 3));
  EXPECT_THAT(k->li32_, ElementsAre(1, 2, 3));
  EXPECT_THAT(k->lf_, ElementsAre(0.5f));
  EXPECT_THAT(k->lt_, ElementsAre(DT_INT32, DT_BOOL));
  EXPECT_THAT(k->lsh_, ElementsAre(TensorShape({1}), TensorShape()));
  EXPECT_EQ(k->d_, 7);  // the op's default, filled in by CreateOpKernel
  EXPECT_TRUE(k->has_d_);
  EXPECT_FALSE(k->has_missing_);
  EXPECT_THAT(k->missing_status_,
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("'missing'")));
  EXPECT_THAT(k->wrong_type_status_,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("'string'"), HasSubstr("'int'"))));
}

TEST_F(OpKernelTest, AccessorsDescribeTheNode) {
  MakeNode("OkNamed", "named")
      .Input(DT_FLOAT)
      .Input(3, DT_INT32)
      .Device("/device:CPU:0");
  MF_ASSERT_OK(MakeOp());
  OpKernel* k = op_kernel();
  EXPECT_EQ(k->name(), "named");
  EXPECT_EQ(k->name_view(), "named");
  EXPECT_EQ(k->type_string(), "OkNamed");
  EXPECT_EQ(k->requested_device(), "/device:CPU:0");
  EXPECT_EQ(k->def().op(), "OkNamed");
  EXPECT_EQ(k->op_def().name(), "OkNamed");
  EXPECT_EQ(k->num_inputs(), 4);
  EXPECT_EQ(k->num_outputs(), 4);
  EXPECT_EQ(k->input_type(0), DT_FLOAT);
  EXPECT_EQ(k->input_type(3), DT_INT32);
  EXPECT_THAT(k->output_types(),
              ElementsAre(DT_FLOAT, DT_INT32, DT_INT32, DT_INT32));
  EXPECT_THAT(
      k->input_memory_types(),
      ElementsAre(DEVICE_MEMORY, DEVICE_MEMORY, DEVICE_MEMORY, DEVICE_MEMORY));
  EXPECT_TRUE(k->IsExpensive());
  EXPECT_EQ(k->AsAsync(), nullptr);
  EXPECT_EQ(k->const_tensor(), nullptr);
  int start = 0;
  int stop = 0;
  MF_ASSERT_OK(k->InputRange("b", &start, &stop));
  EXPECT_EQ(start, 1);
  EXPECT_EQ(stop, 4);
  MF_ASSERT_OK(k->OutputRange("d", &start, &stop));
  EXPECT_EQ(start, 1);
  EXPECT_EQ(stop, 4);
  EXPECT_THAT(
      k->InputRange("zz", &start, &stop),
      StatusIs(absl::StatusCode::kInvalidArgument, "Unknown input name: zz"));
}

TEST_F(OpKernelTest, NamedInputsAndListsReachTheRightTensors) {
  MakeNode("OkNamed").Input(DT_FLOAT).Input(2, DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<float>(TensorShape({2}), {1.5f, 2.5f});
  AddInputFromArray<int32_t>(TensorShape({1}), {10});
  AddInputFromArray<int32_t>(TensorShape({2}), {20, 30});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(*GetOutput(0),
                                 test::AsTensor<float>({1.5f, 2.5f}));
  test::ExpectTensorEqual<int32_t>(*GetOutput(1),
                                   test::AsTensor<int32_t>({10}));
  test::ExpectTensorEqual<int32_t>(*GetOutput(2),
                                   test::AsTensor<int32_t>({20, 30}));
  auto* k = dynamic_cast<NamedKernel*>(op_kernel());
  EXPECT_THAT(k->list_as_single_,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "OpKernel used list-valued input name 'b' when "
                       "single-valued input was expected"));
  EXPECT_THAT(k->unknown_name_, StatusIs(absl::StatusCode::kInvalidArgument,
                                         "Unknown input name: nope"));
  EXPECT_EQ(context()->input_dtype(1), DT_INT32);
  DataType dt = DT_INVALID;
  MF_ASSERT_OK(context()->input_dtype("a", &dt));
  EXPECT_EQ(dt, DT_FLOAT);
}

TEST_F(OpKernelTest, OpRequiresReturnsEarly) {
  MakeNode("OkEarlyReturn").Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  const int before = g_after_check.load();
  AddInputFromArray<int32_t>(TensorShape({}), {-3});
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("x must be >= 0, but got -3"),
                             HasSubstr("[[{{node op}} = OkEarlyReturn]]"))));
  EXPECT_EQ(g_after_check.load(), before);

  ClearInputs();
  AddInputFromArray<int32_t>(TensorShape({}), {7});
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("seven")));
  EXPECT_EQ(g_after_check.load(), before);

  ClearInputs();
  AddInputFromArray<int32_t>(TensorShape({}), {1});
  MF_EXPECT_OK(RunOpKernel());
  EXPECT_EQ(g_after_check.load(), before + 1);
}

TEST_F(OpKernelTest, OpRequiresMacrosAreSingleStatements) {
  // Each macro must sit under an unbraced if/else without changing its
  // meaning (they are do { } while (0)).
  struct Ctx {
    Status status;
    void CtxFailure(const char*, int, const Status& s) { status = s; }
  };
  auto run = [](bool take_if, bool fail) {
    Ctx ctx;
    auto body = [&](Ctx* c) {
      if (take_if)
        OP_REQUIRES(c, !fail, errors::Internal("required"));
      else
        OP_REQUIRES_OK(c, fail ? errors::Internal("ok") : OkStatus());
    };
    body(&ctx);
    return ctx.status;
  };
  EXPECT_THAT(run(true, true),
              StatusIs(absl::StatusCode::kInternal, "required"));
  MF_EXPECT_OK(run(true, false));
  EXPECT_THAT(run(false, true), StatusIs(absl::StatusCode::kInternal, "ok"));
  MF_EXPECT_OK(run(false, false));
}

TEST_F(OpKernelTest, ForwardsOnlyWhenTheInputHasOneOwner) {
  MakeNode("OkForward");
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<float>(TensorShape({2, 2}), {1, 2, 3, 4});
  MF_ASSERT_OK(RunOpKernel());
  // y took x's buffer, reshaped; z (int32) could not.
  EXPECT_TRUE(GetOutput(0)->SharesBufferWith(GetInput(0)));
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({4}));
  test::ExpectTensorEqual<float>(GetInput(0),
                                 test::AsTensor<float>({5, 5, 5, 5}, {2, 2}));
  EXPECT_FALSE(GetOutput(1)->SharesBufferWith(GetInput(0)));

  // A second reference to the input (a fetch, another consumer) forbids it.
  ClearInputs();
  AddInputFromArray<float>(TensorShape({2, 2}), {1, 2, 3, 4});
  const Tensor held = GetInput(0);
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_FALSE(GetOutput(0)->SharesBufferWith(held));
  test::ExpectTensorEqual<float>(held,
                                 test::AsTensor<float>({1, 2, 3, 4}, {2, 2}));
}

TEST_F(OpKernelTest, DoesNotForwardAcrossMemoryTypes) {
  MakeNode("OkForward").Attr("_kernel", "host");
  MF_ASSERT_OK(MakeOp());
  EXPECT_THAT(op_kernel()->output_memory_types(),
              ElementsAre(HOST_MEMORY, DEVICE_MEMORY));
  AddInputFromArray<float>(TensorShape({3}), {1, 2, 3});
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_FALSE(GetOutput(0)->SharesBufferWith(GetInput(0)));
}

TEST_F(OpKernelTest, DoesNotForwardRefInputsOrChangeElementCounts) {
  MakeNode("OkForward");
  MF_ASSERT_OK(MakeOp());
  Tensor x = test::AsTensor<float>({1, 2, 3});
  x = x.DeepCopy();
  absl::Mutex mu;
  std::vector<TensorValue> inputs = {TensorValue(&mu, &x)};
  OpKernelContext::Params params;
  params.device = device();
  params.op_kernel = op_kernel();
  params.inputs = inputs;
  OpKernelContext ctx(&params);
  Tensor* out = nullptr;
  EXPECT_FALSE(
      ctx.forward_input_to_output_with_shape(0, 0, TensorShape({3}), &out));
  inputs[0] = TensorValue(&x);
  OpKernelContext ctx2(&params);
  EXPECT_FALSE(
      ctx2.forward_input_to_output_with_shape(0, 0, TensorShape({4}), &out));
  EXPECT_FALSE(
      ctx2.forward_input_to_output_with_shape(5, 0, TensorShape({3}), &out));
  ASSERT_TRUE(
      ctx2.forward_input_to_output_with_shape(0, 0, TensorShape({3, 1}), &out));
  EXPECT_EQ(out->shape(), TensorShape({3, 1}));
  EXPECT_TRUE(out->SharesBufferWith(x));
  int used = -2;
  Tensor* z = nullptr;
  MF_ASSERT_OK(ctx2.forward_input_or_allocate_output({0}, 1, TensorShape({3}),
                                                     &z, &used));
  EXPECT_EQ(used, -1);  // dtype differs
  Tensor temp;
  MF_ASSERT_OK(ctx2.forward_input_or_allocate_temp({0}, DT_FLOAT,
                                                   TensorShape({3}), &temp));
  EXPECT_FALSE(temp.SharesBufferWith(x));  // the output now holds x too
}

TEST_F(OpKernelTest, AllocateOutputTakesARecycledBufferOnlyWhenItMay) {
  MakeNode("OkAlloc").Attr("what", "output").Attr("n", int64_t{6});
  MF_ASSERT_OK(MakeOp());
  OpKernelContext::Params params;
  params.device = device();
  params.op_kernel = op_kernel();
  auto allocate = [&](const TensorShape& shape) {
    OpKernelContext ctx(&params);
    Tensor* out = nullptr;
    EXPECT_TRUE(ctx.allocate_output(0, shape, &out).ok());
    return *out;
  };
  // Same dtype and element count, no other owner: taken (in a new shape),
  // and the entry is left empty.
  Tensor old(DT_FLOAT, TensorShape({6}));
  const void* buffer = old.data();
  params.recycled_outputs = &old;
  Tensor reused = allocate(TensorShape({2, 3}));
  EXPECT_EQ(reused.data(), buffer);
  EXPECT_EQ(reused.shape(), TensorShape({2, 3}));
  EXPECT_EQ(old.NumElements(), 0);
  // Shared with someone else, another size or another dtype: not taken.
  Tensor shared(DT_FLOAT, TensorShape({6}));
  const Tensor other_owner = shared;
  params.recycled_outputs = &shared;
  EXPECT_FALSE(allocate(TensorShape({6})).SharesBufferWith(other_owner));
  Tensor bigger(DT_FLOAT, TensorShape({7}));
  params.recycled_outputs = &bigger;
  EXPECT_NE(allocate(TensorShape({6})).data(), bigger.data());
  Tensor ints(DT_INT32, TensorShape({6}));
  params.recycled_outputs = &ints;
  EXPECT_NE(allocate(TensorShape({6})).data(), ints.data());
  EXPECT_EQ(ints.NumElements(), 6);
}

TEST_F(OpKernelTest, AllocateOutputOomNamesTheNodeAndBytes) {
  CpuAllocator limited(/*bytes_limit=*/1 << 20);
  set_allocator(&limited);
  MakeNode("OkAlloc", "big_alloc").Attr("what", "output");
  MF_ASSERT_OK(MakeOp());
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       AllOf(HasSubstr("4000000 bytes"),
                             HasSubstr("output 0 of node 'big_alloc'"))));
}

TEST_F(OpKernelTest, CountsAllocatedBytes) {
  MakeNode("OkAlloc").Attr("what", "by_name").Attr("n", int64_t{100});
  MF_ASSERT_OK(MakeOp());
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(context()->output_allocated_bytes(0), 400);
  EXPECT_EQ(context()->temp_memory_allocated(), 400);
  EXPECT_EQ(context()->output_allocated_bytes(9), 0);
}

TEST_F(OpKernelTest, BadOutputIndexAndDtypeAreErrors) {
  MakeNode("OkAlloc").Attr("what", "bad_index");
  MF_ASSERT_OK(MakeOp());
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Requested output index 3 is out of range. "
                                 "Number of outputs is 1.")));
  MakeNode("OkAlloc").Attr("what", "wrong_dtype");
  MF_ASSERT_OK(MakeOp());
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInternal,
                       HasSubstr("must be float, but got int32")));
  EXPECT_EQ(GetOutput(0), nullptr);
}

TEST_F(OpKernelTest, ConstructorChecksSignatureAndAllocatesTemps) {
  MakeNode("OkSignature").Input(DT_FLOAT);
  MF_ASSERT_OK(MakeOp());
  EXPECT_FALSE(op_kernel()->IsExpensive());
  MakeNode("OkSignature").Input(DT_INT32);
  EXPECT_THAT(MakeOp(), StatusIs(absl::StatusCode::kInvalidArgument,
                                 AllOf(HasSubstr("Signature mismatch, have: "
                                                 "int32->int32 expected: "
                                                 "float->float"),
                                       HasSubstr("{{node op}}"))));
}

TEST_F(OpKernelTest, EigenDeviceRunsOnTheIntraOpPool) {
  MakeNode("OkAddOne");
  MF_ASSERT_OK(MakeOp());
  AddInput<float>(TensorShape({1000}), [](int i) { return float(i); });
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(&context()->eigen_device<Eigen::ThreadPoolDevice>(),
            device()->eigen_cpu_device());
  EXPECT_EQ(context()->eigen_device<Eigen::ThreadPoolDevice>().numThreads(),
            device()->tensorflow_cpu_worker_threads()->num_threads);
  EXPECT_EQ(GetOutput(0)->flat<float>()(999), 1000.0f);
  EXPECT_EQ(context()->resource_manager(), device()->resource_manager());
  EXPECT_NE(context()->resource_manager(), nullptr);
}

TEST_F(OpKernelTest, ComputeRunsConcurrentlyOnOneKernel) {
  MakeNode("OkAddOne");
  MF_ASSERT_OK(MakeOp());
  OpKernel* kernel = op_kernel();
  constexpr int kThreads = 8;
  constexpr int kRuns = 50;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRuns; ++r) {
        Tensor x(DT_FLOAT, TensorShape({257}));
        x.flat<float>().setConstant(float(t * 1000 + r));
        std::vector<TensorValue> inputs = {TensorValue(&x)};
        OpKernelContext::Params params;
        params.device = device();
        params.op_kernel = kernel;
        params.inputs = inputs;
        OpKernelContext ctx(&params);
        kernel->Compute(&ctx);
        const Tensor* y = ctx.mutable_output(0);
        if (!ctx.status().ok() || y == nullptr ||
            y->flat<float>()(256) != float(t * 1000 + r) + 1) {
          failures.fetch_add(1);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_F(OpKernelTest, KernelsSeeCancellation) {
  MakeNode("OkSpin");
  MF_ASSERT_OK(MakeOp());
  g_spinning = false;
  std::thread canceller([this] {
    while (!g_spinning) std::this_thread::yield();
    cancellation_manager()->StartCancel();
  });
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kCancelled));
  canceller.join();
  EXPECT_TRUE(context()->IsCancelled());
}

TEST_F(OpKernelTest, AsyncKernelsFinishLaterAndReportThroughDone) {
  MakeNode("OkAsync");
  MF_ASSERT_OK(MakeOp());
  ASSERT_NE(op_kernel()->AsAsync(), nullptr);
  AddInputFromArray<float>(TensorShape({2}), {1, 2});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(*GetOutput(0), test::AsTensor<float>({2, 4}));

  ClearInputs();
  AddInputFromArray<float>(TensorShape({2}), {-1, 2});
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("x must be >= 0")));

  // The synchronous Compute of an async kernel waits for done.
  ClearInputs();
  AddInputFromArray<float>(TensorShape({1}), {3});
  std::vector<TensorValue> inputs = {
      TensorValue(const_cast<Tensor*>(&GetInput(0)))};
  OpKernelContext::Params params;
  params.device = device();
  params.op_kernel = op_kernel();
  params.inputs = inputs;
  OpKernelContext ctx(&params);
  op_kernel()->Compute(&ctx);
  MF_ASSERT_OK(ctx.status());
  EXPECT_EQ(ctx.mutable_output(0)->flat<float>()(0), 6.0f);
}

TEST_F(OpKernelTest, SynchronousOpRequiresInAsyncKernelIsCaught) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  MakeNode("OkAsyncMisuse");
  MF_ASSERT_OK(MakeOp());
  EXPECT_DEATH(RunOpKernel().IgnoreError(),
               "Use OP_REQUIRES_ASYNC in AsyncOpKernel implementations");
}

}  // namespace
}  // namespace minflow
