// TensorFlow 2's TensorList ops through a Session: lists built in loops
// (functional While and TF1 while loops) and stacked, round trips through
// FromTensor, GetItem, Gather, Stack, PopBack and ConcatV2, every error the
// kernels give, element shapes inferred through the handle data, and the
// in-place updates that keep a loop of N push-backs O(N).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/substitute.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/variant.h"
#include "minflow/framework/device.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_pipeline.h"
#include "minflow/runtime/session.h"
#include "src/kernels/tensor_list.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"
#include "tests/testlib/tf1_graph_builder.h"

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;
using ::minflow::testing::StatusIs;
using ::minflow::testing::Tf1GraphBuilder;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

using Feeds = std::vector<std::pair<std::string, Tensor>>;

Tensor Ints(std::vector<int32_t> values) {
  Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) t.flat<int32_t>()(i) = values[i];
  return t;
}

Tensor Int64s(std::vector<int64_t> values) {
  Tensor t(DT_INT64, TensorShape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) t.flat<int64_t>()(i) = values[i];
  return t;
}

// 0, 1, 2, ... in `shape`.
Tensor Iota(const TensorShape& shape) {
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.flat<float>()(i) = i;
  return t;
}

std::vector<float> Values(const Tensor& t) {
  std::vector<float> v(t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) v[i] = t.flat<float>()(i);
  return v;
}

// A DT_VARIANT scalar holding `value`.
template <typename T>
Tensor VariantScalar(T value) {
  Tensor t(DT_VARIANT, TensorShape());
  t.scalar<Variant>()() = std::move(value);
  return t;
}

// A float list of `shape` holding `rows`, each a [2] of (r, r).
Tensor FloatList(const PartialTensorShape& shape, int rows,
                 int max_num_elements = -1) {
  TensorList list(DT_FLOAT, shape, max_num_elements);
  for (int r = 0; r < rows; ++r) {
    Tensor t(DT_FLOAT, TensorShape({2}));
    t.flat<float>().setConstant(r);
    list.tensors().push_back(t);
  }
  return VariantScalar(std::move(list));
}

Status RunGraph(const GraphDef& graph, const Feeds& feeds,
                const std::vector<std::string>& fetches,
                std::vector<Tensor>* out) {
  MF_ASSIGN_OR_RETURN(std::unique_ptr<Session> session,
                      Session::Create(graph, SessionOptions()));
  return session->Run(feeds, fetches, {}, out);
}

// Builds list graphs node by node.
class ListGraph {
 public:
  ListGraph() = default;
  std::string Const(const std::string& name, const Tensor& value) {
    return b_.Const(name, value);
  }
  std::string Placeholder(const std::string& name, DataType dtype) {
    return b_.Placeholder(name, dtype);
  }
  // An op on `inputs` with element_dtype (when not DT_INVALID) and
  // shape_type/Tshape where the op has them.
  NodeDef* Op(const std::string& name, const std::string& op,
              std::vector<std::string> inputs,
              DataType element_dtype = DT_FLOAT) {
    NodeDef* n = b_.Node(name, op, std::move(inputs));
    if (element_dtype != DT_INVALID) {
      AddNodeAttr("element_dtype", element_dtype, n);
    }
    if (op == "EmptyTensorList" || op == "TensorListReserve" ||
        op == "TensorListFromTensor" || op == "TensorListConcatV2" ||
        op == "TensorListSplit" || op == "TensorListScatter" ||
        op == "TensorListScatterV2" || op == "TensorListElementShape") {
      AddNodeAttr("shape_type", DT_INT32, n);
    }
    return n;
  }
  Tf1GraphBuilder& builder() { return b_; }
  const GraphDef& graph() const { return b_.graph(); }

 private:
  Tf1GraphBuilder b_;
};

// ---------------------------------------------------------------------------
// Loops.

// A functional While over (i, n, list): the body appends row i, k floats of
// value i, by TensorListPushBack (or sets it with TensorListSetItem on a
// list Reserve'd with n elements); "stack" stacks the result.
GraphDef FunctionalLoopGraph(int k, bool set_item) {
  const std::string list_node = set_item ? R"pb(
                                      node {
                                        name: "list"
                                        op: "TensorListReserve"
                                        input: "shape"
                                        input: "n"
                                        attr {
                                          key: "element_dtype"
                                          value { type: DT_FLOAT }
                                        }
                                        attr {
                                          key: "shape_type"
                                          value { type: DT_INT32 }
                                        }
                                      })pb"
                                         : R"pb(
    node {
      name: "list"
      op: "EmptyTensorList"
      input: "shape"
      input: "minus_one"
      attr {
        key: "element_dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "shape_type"
        value { type: DT_INT32 }
      }
    })pb";
  const std::string update = set_item ? R"pb(
                                   node_def {
                                     name: "update"
                                     op: "TensorListSetItem"
                                     input: "l"
                                     input: "i"
                                     input: "row:output:0"
                                     attr {
                                       key: "element_dtype"
                                       value { type: DT_FLOAT }
                                     }
                                   })pb"
                                      : R"pb(
    node_def {
      name: "update"
      op: "TensorListPushBack"
      input: "l"
      input: "row:output:0"
      attr {
        key: "element_dtype"
        value { type: DT_FLOAT }
      }
    })pb";
  return ParseTextProtoOrDie<GraphDef>(absl::Substitute(
      R"pb(
        node {
          name: "n"
          op: "Placeholder"
          attr {
            key: "dtype"
            value { type: DT_INT32 }
          }
        }
        node {
          name: "zero"
          op: "Const"
          attr {
            key: "dtype"
            value { type: DT_INT32 }
          }
          attr {
            key: "value"
            value {
              tensor {
                dtype: DT_INT32
                tensor_shape {}
                int_val: 0
              }
            }
          }
        }
        node {
          name: "minus_one"
          op: "Const"
          attr {
            key: "dtype"
            value { type: DT_INT32 }
          }
          attr {
            key: "value"
            value {
              tensor {
                dtype: DT_INT32
                tensor_shape {}
                int_val: -1
              }
            }
          }
        }
        node {
          name: "shape"
          op: "Const"
          attr {
            key: "dtype"
            value { type: DT_INT32 }
          }
          attr {
            key: "value"
            value {
              tensor {
                dtype: DT_INT32
                tensor_shape { dim { size: 1 } }
                int_val: $0
              }
            }
          }
        } $1
        node {
          name: "loop"
          op: "While"
          input: "zero"
          input: "n"
          input: "list"
          attr {
            key: "T"
            value { list { type: DT_INT32 type: DT_INT32 type: DT_VARIANT } }
          }
          attr {
            key: "cond"
            value { func { name: "less" } }
          }
          attr {
            key: "body"
            value { func { name: "append_row" } }
          }
        }
        node {
          name: "stack"
          op: "TensorListStack"
          input: "loop:2"
          input: "minus_one"
          attr {
            key: "element_dtype"
            value { type: DT_FLOAT }
          }
        }
        node { name: "length" op: "TensorListLength" input: "loop:2" }
        library {
          function {
            signature {
              name: "less"
              input_arg { name: "i" type: DT_INT32 }
              input_arg { name: "n" type: DT_INT32 }
              input_arg { name: "l" type: DT_VARIANT }
              output_arg { name: "ok" type: DT_BOOL }
            }
            node_def {
              name: "less"
              op: "Less"
              input: "i"
              input: "n"
              attr {
                key: "T"
                value { type: DT_INT32 }
              }
            }
            ret { key: "ok" value: "less:z:0" }
          }
          function {
            signature {
              name: "append_row"
              input_arg { name: "i" type: DT_INT32 }
              input_arg { name: "n" type: DT_INT32 }
              input_arg { name: "l" type: DT_VARIANT }
              output_arg { name: "next" type: DT_INT32 }
              output_arg { name: "same" type: DT_INT32 }
              output_arg { name: "list" type: DT_VARIANT }
            }
            node_def {
              name: "value"
              op: "Cast"
              input: "i"
              attr {
                key: "SrcT"
                value { type: DT_INT32 }
              }
              attr {
                key: "DstT"
                value { type: DT_FLOAT }
              }
            }
            node_def {
              name: "dims"
              op: "Const"
              attr {
                key: "dtype"
                value { type: DT_INT32 }
              }
              attr {
                key: "value"
                value {
                  tensor {
                    dtype: DT_INT32
                    tensor_shape { dim { size: 1 } }
                    int_val: $0
                  }
                }
              }
            }
            node_def {
              name: "row"
              op: "Fill"
              input: "dims:output:0"
              input: "value:y:0"
              attr {
                key: "T"
                value { type: DT_FLOAT }
              }
            } $2
            node_def {
              name: "one"
              op: "Const"
              attr {
                key: "dtype"
                value { type: DT_INT32 }
              }
              attr {
                key: "value"
                value {
                  tensor {
                    dtype: DT_INT32
                    tensor_shape {}
                    int_val: 1
                  }
                }
              }
            }
            node_def {
              name: "add"
              op: "AddV2"
              input: "i"
              input: "one:output:0"
              attr {
                key: "T"
                value { type: DT_INT32 }
              }
            }
            ret { key: "next" value: "add:z:0" }
            ret { key: "same" value: "n" }
            ret { key: "list" value: "update:output_handle:0" }
          }
        })pb",
      k, list_node, update));
}

// Row i of a [n, k] stack is k copies of i.
void ExpectRowsOfTheirIndex(const Tensor& stacked, int n, int k) {
  ASSERT_EQ(stacked.shape(), TensorShape({n, k}));
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < k; ++j) {
      ASSERT_EQ(stacked.matrix<float>()(i, j), i) << i << "," << j;
    }
  }
}

TEST(ListKernelsTest, FunctionalWhilePushesAThousandRowsThenStacks) {
  std::vector<Tensor> out;
  MF_ASSERT_OK(RunGraph(FunctionalLoopGraph(4, /*set_item=*/false),
                        {{"n", Tensor(int32_t{1000})}}, {"stack", "length"},
                        &out));
  ExpectRowsOfTheirIndex(out[0], 1000, 4);
  EXPECT_EQ(out[1].scalar<int32_t>()(), 1000);
}

TEST(ListKernelsTest, FunctionalWhileSetsItemsOfAReservedList) {
  std::vector<Tensor> out;
  MF_ASSERT_OK(RunGraph(FunctionalLoopGraph(3, /*set_item=*/true),
                        {{"n", Tensor(int32_t{1000})}}, {"stack"}, &out));
  ExpectRowsOfTheirIndex(out[0], 1000, 3);
}

TEST(ListKernelsTest, AnEmptyLoopStacksToZeroRows) {
  std::vector<Tensor> out;
  MF_ASSERT_OK(RunGraph(FunctionalLoopGraph(4, /*set_item=*/false),
                        {{"n", Tensor(int32_t{0})}}, {"stack"}, &out));
  EXPECT_EQ(out[0].shape(), TensorShape({0, 4}));
}

TEST(ListKernelsTest, TenThousandPushBacksInAWhileRunInPlace) {
  // Copying the list at every push would copy 50 million tensor handles;
  // in place it is 10,000 appends.
  std::vector<Tensor> out;
  MF_ASSERT_OK(RunGraph(FunctionalLoopGraph(1, /*set_item=*/false),
                        {{"n", Tensor(int32_t{10000})}}, {"stack"}, &out));
  ExpectRowsOfTheirIndex(out[0], 10000, 1);
}

// A TF1 while loop over (i, list) pushing rows of 2 floats of value i.
GraphDef Tf1LoopGraph() {
  ListGraph g;
  Tf1GraphBuilder& b = g.builder();
  g.Placeholder("n", DT_INT32);
  g.Const("zero", Tensor(int32_t{0}));
  g.Const("shape", Ints({2}));
  g.Const("minus_one", Tensor(int32_t{-1}));
  g.Op("empty", "EmptyTensorList", {"shape", "minus_one"});
  const std::vector<std::string> exits = b.While(
      "loop", {"zero", "empty"},
      [&](const std::vector<std::string>& v, const std::string&) {
        b.Enter("loop/limit", "n", "loop", /*is_constant=*/true);
        return b.Add("loop/less", "Less", {v[0], "loop/limit"});
      },
      [&](const std::vector<std::string>& v, const std::string& pivot) {
        b.Const("loop/one", 1, {pivot});
        b.Const("loop/dims", Ints({2}), {pivot});
        NodeDef* cast = b.Node("loop/value", "Cast", {v[0]});
        AddNodeAttr("SrcT", DT_INT32, cast);
        AddNodeAttr("DstT", DT_FLOAT, cast);
        b.Add("loop/row", "Fill", {"loop/dims", "loop/value"}, DT_FLOAT);
        g.Op("loop/push", "TensorListPushBack", {v[1], "loop/row"});
        return std::vector<std::string>{
            b.Add("loop/add", "AddV2", {v[0], "loop/one"}), "loop/push"};
      },
      /*parallel_iterations=*/10, {DT_INT32, DT_VARIANT});
  g.Op("stack", "TensorListStack", {exits[1], "minus_one"});
  return g.graph();
}

TEST(ListKernelsTest, Tf1WhileLoopPushesAThousandRowsThenStacks) {
  std::vector<Tensor> out;
  MF_ASSERT_OK(RunGraph(Tf1LoopGraph(), {{"n", Tensor(int32_t{1000})}},
                        {"stack"}, &out));
  ExpectRowsOfTheirIndex(out[0], 1000, 2);
}

// ---------------------------------------------------------------------------
// Round trips.

// "list": a TensorListFromTensor of `value` ([3, 2] by default).
ListGraph FromTensorGraph(const Tensor& value = Iota(TensorShape({3, 2}))) {
  ListGraph g;
  g.Const("value", value);
  g.Const("shape", Ints({2}));
  g.Const("unknown", Tensor(int32_t{-1}));
  g.Op("list", "TensorListFromTensor", {"value", "shape"});
  return g;
}

TEST(ListKernelsTest, FromTensorRoundTripsThroughStackGetItemAndGather) {
  ListGraph g = FromTensorGraph();
  g.Const("one", Tensor(int32_t{1}));
  g.Const("indices", Ints({2, 0, 2}));
  g.Op("stack", "TensorListStack", {"list", "unknown"});
  g.Op("item", "TensorListGetItem", {"list", "one", "unknown"});
  g.Op("gather", "TensorListGather", {"list", "indices", "unknown"});
  g.Op("length", "TensorListLength", {"list"}, DT_INVALID);
  g.Op("element_shape", "TensorListElementShape", {"list"}, DT_INVALID);
  std::vector<Tensor> out;
  MF_ASSERT_OK(RunGraph(g.graph(), {},
                        {"stack", "item", "gather", "length", "element_shape"},
                        &out));
  EXPECT_EQ(out[0].shape(), TensorShape({3, 2}));
  EXPECT_THAT(Values(out[0]), ElementsAre(0, 1, 2, 3, 4, 5));
  EXPECT_THAT(Values(out[1]), ElementsAre(2, 3));
  EXPECT_EQ(out[2].shape(), TensorShape({3, 2}));
  EXPECT_THAT(Values(out[2]), ElementsAre(4, 5, 0, 1, 4, 5));
  EXPECT_EQ(out[3].scalar<int32_t>()(), 3);
  EXPECT_EQ(out[4].shape(), TensorShape({1}));
  EXPECT_EQ(out[4].flat<int32_t>()(0), 2);
}

TEST(ListKernelsTest, UnsetElementsReadAsZeros) {
  ListGraph g;
  g.Const("shape", Ints({2}));
  g.Const("three", Tensor(int32_t{3}));
  g.Const("one", Tensor(int32_t{1}));
  g.Const("row", Iota(TensorShape({2})));
  g.Op("reserved", "TensorListReserve", {"shape", "three"});
  g.Op("set", "TensorListSetItem", {"reserved", "one", "row"});
  g.Op("stack", "TensorListStack", {"set", "shape"});
  g.Op("item0", "TensorListGetItem", {"set", "three", "shape"});
  std::vector<Tensor> out;
  MF_ASSERT_OK(RunGraph(g.graph(), {}, {"stack"}, &out));
  EXPECT_THAT(Values(out[0]), ElementsAre(0, 0, 0, 1, 0, 0));
}

TEST(ListKernelsTest, SetItemCanGrowTheList) {
  ListGraph g;
  g.Const("shape", Tensor(int32_t{-1}));
  g.Const("minus_one", Tensor(int32_t{-1}));
  g.Const("two", Tensor(int32_t{2}));
  g.Const("row", Iota(TensorShape({2})));
  g.Op("empty", "EmptyTensorList", {"shape", "minus_one"});
  AddNodeAttr("resize_if_index_out_of_bounds", true,
              g.Op("set", "TensorListSetItem", {"empty", "two", "row"}));
  g.Op("stack", "TensorListStack", {"set", "shape"});
  std::vector<Tensor> out;
  MF_ASSERT_OK(RunGraph(g.graph(), {}, {"stack"}, &out));
  EXPECT_EQ(out[0].shape(), TensorShape({3, 2}));
  EXPECT_THAT(Values(out[0]), ElementsAre(0, 0, 0, 0, 0, 1));
}

TEST(ListKernelsTest, PopBackReturnsTheLastElementAndTheRest) {
  ListGraph g = FromTensorGraph();
  g.Op("pop", "TensorListPopBack", {"list", "unknown"});
  g.Op("pop2", "TensorListPopBack", {"pop:0", "unknown"});
  g.Op("rest", "TensorListStack", {"pop2:0", "unknown"});
  std::vector<Tensor> out;
  MF_ASSERT_OK(RunGraph(g.graph(), {}, {"pop:1", "pop2:1", "rest"}, &out));
  EXPECT_THAT(Values(out[0]), ElementsAre(4, 5));
  EXPECT_THAT(Values(out[1]), ElementsAre(2, 3));
  EXPECT_EQ(out[2].shape(), TensorShape({1, 2}));
  EXPECT_THAT(Values(out[2]), ElementsAre(0, 1));
}

TEST(ListKernelsTest, ABranchedListIsCopiedNotShared) {
  // Two pushes onto one list: neither may see the other's element.
  ListGraph g = FromTensorGraph();
  g.Const("a", Iota(TensorShape({2})));
  g.Op("push_a", "TensorListPushBack", {"list", "a"});
  g.Op("push_b", "TensorListPushBack", {"list", "a"});
  g.Op("push_b2", "TensorListPushBack", {"push_b", "a"});
  g.Op("len", "TensorListLength", {"list"}, DT_INVALID);
  g.Op("len_a", "TensorListLength", {"push_a"}, DT_INVALID);
  g.Op("len_b", "TensorListLength", {"push_b2"}, DT_INVALID);
  std::vector<Tensor> out;
  MF_ASSERT_OK(RunGraph(g.graph(), {}, {"len", "len_a", "len_b"}, &out));
  EXPECT_EQ(out[0].scalar<int32_t>()(), 3);
  EXPECT_EQ(out[1].scalar<int32_t>()(), 4);
  EXPECT_EQ(out[2].scalar<int32_t>()(), 5);
}

TEST(ListKernelsTest, ConcatV2JoinsElementsAlongTheirFirstDim) {
  ListGraph g;
  g.Const("value", Iota(TensorShape({5, 2})));
  g.Const("shape", Ints({-1, 2}));
  g.Const("lengths", Int64s({2, 0, 3}));
  g.Const("no_dims", Int64s({}));
  g.Op("split", "TensorListSplit", {"value", "shape", "lengths"});
  g.Op("concat", "TensorListConcatV2", {"split", "shape", "no_dims"});
  // Unset elements take their leading dims from leading_dims.
  g.Const("four", Tensor(int32_t{4}));
  g.Const("leading", Int64s({1, 0, 2, 1}));
  g.Op("reserved", "TensorListReserve", {"shape", "four"});
  g.Const("zero", Tensor(int32_t{0}));
  g.Const("row", Iota(TensorShape({1, 2})));
  g.Op("set", "TensorListSetItem", {"reserved", "zero", "row"});
  g.Op("concat_unset", "TensorListConcatV2", {"set", "shape", "leading"});
  std::vector<Tensor> out;
  MF_ASSERT_OK(RunGraph(
      g.graph(), {},
      {"concat:0", "concat:1", "concat_unset:0", "concat_unset:1"}, &out));
  EXPECT_EQ(out[0].shape(), TensorShape({5, 2}));
  EXPECT_THAT(Values(out[0]), ElementsAre(0, 1, 2, 3, 4, 5, 6, 7, 8, 9));
  EXPECT_EQ(out[1].flat<int64_t>()(0), 2);
  EXPECT_EQ(out[1].flat<int64_t>()(1), 0);
  EXPECT_EQ(out[1].flat<int64_t>()(2), 3);
  EXPECT_EQ(out[2].shape(), TensorShape({4, 2}));
  EXPECT_THAT(Values(out[2]), ElementsAre(0, 1, 0, 0, 0, 0, 0, 0));
  EXPECT_EQ(out[3].NumElements(), 4);
}

TEST(ListKernelsTest, ScatterAndScatterIntoExistingList) {
  ListGraph g;
  g.Const("value", Iota(TensorShape({2, 2})));
  g.Const("indices", Ints({3, 1}));
  g.Const("shape", Ints({2}));
  g.Const("five", Tensor(int32_t{5}));
  g.Op("scatter", "TensorListScatterV2", {"value", "indices", "shape", "five"});
  g.Const("more", Iota(TensorShape({1, 2})));
  g.Const("zero_index", Ints({0}));
  g.Op("into", "TensorListScatterIntoExistingList",
       {"scatter", "more", "zero_index"});
  g.Op("stack", "TensorListStack", {"into", "shape"});
  std::vector<Tensor> out;
  MF_ASSERT_OK(RunGraph(g.graph(), {}, {"stack"}, &out));
  EXPECT_EQ(out[0].shape(), TensorShape({5, 2}));
  EXPECT_THAT(Values(out[0]), ElementsAre(0, 1, 2, 3, 0, 0, 0, 1, 0, 0));
}

TEST(ListKernelsTest, ResizeTruncatesAndPads) {
  ListGraph g = FromTensorGraph();
  g.Const("one", Tensor(int32_t{1}));
  g.Const("four", Tensor(int32_t{4}));
  g.Op("shrunk", "TensorListResize", {"list", "one"}, DT_INVALID);
  g.Op("grown", "TensorListResize", {"shrunk", "four"}, DT_INVALID);
  g.Op("stack", "TensorListStack", {"grown", "shape"});
  std::vector<Tensor> out;
  MF_ASSERT_OK(RunGraph(g.graph(), {}, {"stack"}, &out));
  EXPECT_THAT(Values(out[0]), ElementsAre(0, 1, 0, 0, 0, 0, 0, 0));
}

TEST(ListKernelsTest, StringElementsStack) {
  Tensor words(DT_STRING, TensorShape({2}));
  words.flat<std::string>()(0) = "one";
  words.flat<std::string>()(1) = "two";
  ListGraph g;
  g.Const("words", words);
  g.Const("scalar_shape", Ints({}));
  g.Op("list", "TensorListFromTensor", {"words", "scalar_shape"}, DT_STRING);
  g.Op("stack", "TensorListStack", {"list", "scalar_shape"}, DT_STRING);
  std::vector<Tensor> out;
  MF_ASSERT_OK(RunGraph(g.graph(), {}, {"stack"}, &out));
  EXPECT_EQ(out[0].flat<std::string>()(1), "two");
}

// ---------------------------------------------------------------------------
// Errors. Lists fed through a DT_VARIANT Placeholder carry no handle data,
// so the kernels see what shape inference could not.

// `op` on the fed list "in" and the fed `more` inputs: the error it gives.
// Feeding every input keeps shape inference from seeing what the kernel
// must check.
Status RunOnFedList(const std::string& op, std::vector<std::string> more,
                    const Tensor& list, DataType element_dtype = DT_FLOAT,
                    std::vector<Tensor> consts = {}) {
  ListGraph g;
  g.Placeholder("in", DT_VARIANT);
  std::vector<std::string> inputs = {"in"};
  Feeds feeds = {{"in", list}};
  for (size_t i = 0; i < more.size(); ++i) {
    g.Placeholder(more[i], consts[i].dtype());
    inputs.push_back(more[i]);
    feeds.emplace_back(more[i], consts[i]);
  }
  g.Op("bad", op, inputs, element_dtype);
  std::vector<Tensor> out;
  return RunGraph(g.graph(), feeds, {"bad:0"}, &out);
}

void ExpectError(const Status& s, const std::string& message) {
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          AllOf(HasSubstr(message), HasSubstr("{{node bad}}"))))
      << message;
}

TEST(ListKernelsTest, NotAListIsRefusedNamingWhatItHolds) {
  ExpectError(
      RunOnFedList("TensorListLength", {}, VariantScalar(int{7}), DT_INVALID),
      "Input handle is not a list. Saw: 'int'");
  ExpectError(RunOnFedList("TensorListLength", {},
                           Tensor(DT_VARIANT, TensorShape()), DT_INVALID),
              "Input handle is not a list. Saw: '<empty>'");
  ExpectError(RunOnFedList("TensorListLength", {},
                           Tensor(DT_VARIANT, TensorShape({2})), DT_INVALID),
              "Input list must be a scalar saw: [2]");
}

TEST(ListKernelsTest, ElementDtypeMustMatch) {
  const Tensor list = FloatList(PartialTensorShape({2}), 2);
  ExpectError(
      RunOnFedList("TensorListStack", {"shape"}, list, DT_INT32, {Ints({2})}),
      "Invalid data types; op elements int32 but list elements float");
  ExpectError(RunOnFedList("TensorListPushBack", {"item"}, list, DT_INT32,
                           {Ints({1, 2})}),
              "Invalid data types; op elements int32 but list elements float");
}

TEST(ListKernelsTest, PushBackErrors) {
  ExpectError(RunOnFedList("TensorListPushBack", {"item"},
                           FloatList(PartialTensorShape({2}), 0), DT_FLOAT,
                           {Iota(TensorShape({3}))}),
              "Tried to append a tensor with incompatible shape to a list. "
              "Op element shape: [3] list shape: [2]");
  ExpectError(RunOnFedList("TensorListPushBack", {"item"},
                           FloatList(PartialTensorShape({2}), 1, 1), DT_FLOAT,
                           {Iota(TensorShape({2}))}),
              "Tried to push item into a full list list size: 1 "
              "max_num_elements: 1");
}

TEST(ListKernelsTest, IndexErrors) {
  const Tensor list = FloatList(PartialTensorShape({2}), 2);
  ExpectError(RunOnFedList("TensorListGetItem", {"index", "shape"}, list,
                           DT_FLOAT, {Tensor(int32_t{2}), Ints({2})}),
              "Trying to access element 2 in a list with 2 elements.");
  ExpectError(RunOnFedList("TensorListGetItem", {"index", "shape"}, list,
                           DT_FLOAT, {Tensor(int32_t{-1}), Ints({2})}),
              "Trying to access element -1 in a list with 2 elements.");
  ExpectError(
      RunOnFedList("TensorListSetItem", {"index", "item"}, list, DT_FLOAT,
                   {Tensor(int32_t{5}), Iota(TensorShape({2}))}),
      "Trying to modify element 5 in a list with 2 elements.");
  ExpectError(
      RunOnFedList("TensorListSetItem", {"index", "item"}, list, DT_FLOAT,
                   {Tensor(int32_t{0}), Iota(TensorShape({3}))}),
      "Tried to set a tensor with incompatible shape at a list index. Item "
      "element shape: [3] list shape: [2]");
  ExpectError(RunOnFedList("TensorListGather", {"indices", "shape"}, list,
                           DT_FLOAT, {Ints({0, 2}), Ints({2})}),
              "Index 2 out of range; list only has 2 elements.");
  ExpectError(RunOnFedList("TensorListPopBack", {"shape"},
                           FloatList(PartialTensorShape({2}), 0), DT_FLOAT,
                           {Ints({2})}),
              "Trying to pop from an empty list.");
  ExpectError(RunOnFedList("TensorListResize", {"size"}, list, DT_INVALID,
                           {Tensor(int32_t{-1})}),
              "TensorListResize expects size to be non-negative. Got: -1");
  ExpectError(
      RunOnFedList("TensorListScatterIntoExistingList", {"rows", "indices"},
                   list, DT_FLOAT, {Iota(TensorShape({1, 2})), Ints({-1})}),
      "Indices in TensorListScatter must all be non-negative.");
  ExpectError(
      RunOnFedList("TensorListScatterIntoExistingList", {"rows", "indices"},
                   list, DT_FLOAT, {Iota(TensorShape({1, 2})), Ints({0, 1})}),
      "Expected len(indices) == tensor.shape[0], but saw: 2 vs. 1");
}

TEST(ListKernelsTest, StackErrors) {
  ListGraph g;
  g.Placeholder("in", DT_VARIANT);
  g.Const("shape", Ints({2}));
  g.Const("unknown", Tensor(int32_t{-1}));
  AddNodeAttr("num_elements", int64_t{3},
              g.Op("bad", "TensorListStack", {"in", "shape"}));
  std::vector<Tensor> out;
  ExpectError(
      RunGraph(g.graph(), {{"in", FloatList(PartialTensorShape({2}), 2)}},
               {"bad"}, &out),
      "Operation expected a list with 3 elements but got a list with "
      "2 elements.");
  ExpectError(RunOnFedList("TensorListStack", {"shape"},
                           FloatList(PartialTensorShape(), 0), DT_FLOAT,
                           {Tensor(int32_t{-1})}),
              "Tried to stack elements of an empty list with non-fully-defined "
              "element_shape: ?");
  ExpectError(
      RunOnFedList("TensorListStack", {"shape"},
                   FloatList(PartialTensorShape(), 1), DT_FLOAT, {Ints({3})}),
      "Incompatible shapes during merge: [3] vs. [2]");
  TensorList unset(DT_FLOAT, PartialTensorShape({-1}));
  unset.tensors().resize(2, Tensor(DT_INVALID));
  ExpectError(RunOnFedList("TensorListStack", {"shape"}, VariantScalar(unset),
                           DT_FLOAT, {Tensor(int32_t{-1})}),
              "Tried to stack list which only contains uninitialized tensors "
              "and has a non-fully-defined element_shape: [?]");
  ExpectError(RunOnFedList("TensorListGetItem", {"index", "shape"},
                           VariantScalar(unset), DT_FLOAT,
                           {Tensor(int32_t{0}), Tensor(int32_t{-1})}),
              "Trying to read an uninitialized tensor but element_shape is "
              "not fully defined: [?]");
  ExpectError(RunOnFedList("TensorListStack", {"shape"},
                           FloatList(PartialTensorShape({2}), 1), DT_FLOAT,
                           {Tensor(int32_t{2})}),
              "The only valid scalar shape tensor is the fully unknown shape "
              "specified as -1.");
}

TEST(ListKernelsTest, ConcatErrors) {
  ExpectError(RunOnFedList("TensorListConcatV2", {"shape", "leading"},
                           FloatList(PartialTensorShape(), 1), DT_FLOAT,
                           {Ints({}), Int64s({})}),
              "Concat requires elements to be at least vectors, found "
              "scalars instead.");
  TensorList unset(DT_FLOAT, PartialTensorShape({-1, 2}));
  unset.tensors().resize(2, Tensor(DT_INVALID));
  ExpectError(RunOnFedList("TensorListConcatV2", {"shape", "leading"},
                           VariantScalar(unset), DT_FLOAT,
                           {Ints({-1, 2}), Int64s({1})}),
              "List contains uninitialized tensor at index 1 but leading_dims "
              "has only 1 elements.");
  ExpectError(RunOnFedList("TensorListConcatV2", {"shape", "leading"},
                           FloatList(PartialTensorShape({-1, -1}), 0), DT_FLOAT,
                           {Ints({-1, -1}), Int64s({})}),
              "All except the first dimension must be fully defined when "
              "concating an empty tensor list. element_shape: [?]");
}

TEST(ListKernelsTest, ConstructionErrors) {
  std::vector<Tensor> out;
  auto run = [&](const std::string& op, const Tensor& a, const Tensor& b) {
    ListGraph g;
    g.Placeholder("a", a.dtype());
    g.Placeholder("b", b.dtype());
    g.Op("bad", op, {"a", "b"});
    return RunGraph(g.graph(), {{"a", a}, {"b", b}}, {"bad"}, &out);
  };
  ExpectError(run("TensorListReserve", Ints({2}), Tensor(int32_t{-3})),
              "The num_elements to reserve must be a non negative number, but "
              "got -3");
  ExpectError(run("EmptyTensorList", Ints({2}), Ints({1})),
              "max_num_elements expected to be a scalar but got shape: [1]");
  ExpectError(run("EmptyTensorList", Ints({2, -2}), Tensor(int32_t{1})), "-2");
  ExpectError(run("TensorListFromTensor", Tensor(1.0f), Ints({})),
              "Tensor must be at least a vector, but saw shape: []");
  ExpectError(run("TensorListFromTensor", Iota(TensorShape({2, 3})), Ints({2})),
              "Specified a list with shape [2] from a tensor with shape [3]");
  ListGraph g;
  g.Placeholder("t", DT_FLOAT);
  g.Placeholder("lengths", DT_INT64);
  g.Const("shape", Ints({-1}));
  g.Op("bad", "TensorListSplit", {"t", "shape", "lengths"});
  ExpectError(
      RunGraph(g.graph(),
               {{"t", Iota(TensorShape({3}))}, {"lengths", Int64s({2, 2})}},
               {"bad"}, &out),
      "Attempting to slice [2, 4] from tensor with length 3");
  ExpectError(
      RunGraph(g.graph(),
               {{"t", Iota(TensorShape({3}))}, {"lengths", Int64s({2})}},
               {"bad"}, &out),
      "Unused values in tensor. Length of tensor: 3 Values used: 2");
}

// ---------------------------------------------------------------------------
// Shape inference through the handle data.

TEST(ListKernelsTest, ShapeInferenceSeesThroughTheHandle) {
  ListGraph g = FromTensorGraph();
  g.Const("one", Tensor(int32_t{1}));
  g.Const("indices", Ints({0, 1}));
  g.Const("row", Iota(TensorShape({2})));
  g.builder().Add("ident", "Identity", {"list"}, DT_VARIANT);
  g.Op("push", "TensorListPushBack", {"ident", "row"});
  g.Op("stack", "TensorListStack", {"push", "unknown"});
  g.Op("item", "TensorListGetItem", {"push", "one", "unknown"});
  g.Op("gather", "TensorListGather", {"push", "indices", "unknown"});
  g.Op("pop", "TensorListPopBack", {"push", "unknown"});
  g.Const("leading_dims", Int64s({}));
  g.Op("concat", "TensorListConcatV2", {"push", "unknown", "leading_dims"});
  g.Op("element_shape", "TensorListElementShape", {"push"}, DT_INVALID);
  // num_elements fixes the leading dim.
  AddNodeAttr("num_elements", int64_t{4},
              g.Op("stack4", "TensorListStack", {"push", "unknown"}));
  std::unique_ptr<GraphPipeline> pipeline;
  MF_ASSERT_OK(
      GraphPipeline::Prepare(g.graph(), GraphPipelineOptions(), &pipeline));
  auto shape = [&](const std::string& name, int port = 0) {
    const Node* n = pipeline->graph().FindNodeByName(name);
    return n == nullptr ? std::string("missing")
                        : n->output_shape(port).DebugString();
  };
  EXPECT_EQ(shape("stack"), "[?,2]");
  EXPECT_EQ(shape("stack4"), "[4,2]");
  EXPECT_EQ(shape("item"), "[2]");
  EXPECT_EQ(shape("gather"), "[2,2]");
  EXPECT_EQ(shape("pop", 1), "[2]");
  EXPECT_EQ(shape("concat"), "[?]");
  EXPECT_EQ(shape("element_shape"), "[1]");
}

TEST(ListKernelsTest, ShapeInferenceMergesTheElementShapeInput) {
  // The list's element shape is unknown; the op's constant input says [2].
  ListGraph g;
  g.Const("unknown", Tensor(int32_t{-1}));
  g.Const("two", Ints({2}));
  g.Op("empty", "EmptyTensorList", {"unknown", "unknown"});
  g.Op("stack", "TensorListStack", {"empty", "two"});
  std::unique_ptr<GraphPipeline> pipeline;
  MF_ASSERT_OK(
      GraphPipeline::Prepare(g.graph(), GraphPipelineOptions(), &pipeline));
  EXPECT_EQ(
      pipeline->graph().FindNodeByName("stack")->output_shape(0).DebugString(),
      "[?,2]");
}

TEST(ListKernelsTest, ShapeInferenceSeesThroughATf1Loop) {
  std::unique_ptr<GraphPipeline> pipeline;
  MF_ASSERT_OK(GraphPipeline::Prepare(Tf1LoopGraph(), GraphPipelineOptions(),
                                      &pipeline));
  EXPECT_EQ(
      pipeline->graph().FindNodeByName("stack")->output_shape(0).DebugString(),
      "[?,2]");
}

TEST(ListKernelsTest, ShapeInferenceRefusesTheWrongDtypeAtCreate) {
  ListGraph g = FromTensorGraph();
  g.Op("bad", "TensorListStack", {"list", "unknown"}, DT_INT32);
  EXPECT_THAT(Session::Create(g.graph(), SessionOptions()).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("Expected list with element dtype int32 "
                                       "but got list with element dtype float"),
                             HasSubstr("{{node bad}}"))));
  ListGraph push = FromTensorGraph();
  push.Const("row", Iota(TensorShape({3})));
  push.Op("bad", "TensorListPushBack", {"list", "row"});
  EXPECT_THAT(
      Session::Create(push.graph(), SessionOptions()).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("{{node bad}}")));
}

// ---------------------------------------------------------------------------
// In place, observed directly on the kernel.

class InPlaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    NodeDef node;
    node.set_name("push");
    node.set_op("TensorListPushBack");
    node.add_input("l");
    node.add_input("x");
    AddNodeAttr("element_dtype", DT_FLOAT, &node);
    MF_ASSERT_OK(
        CreateOpKernel(DEVICE_CPU, &device_, nullptr, node, 0, &kernel_));
  }
  // Runs the kernel on (list, item); the output list tensor.
  Tensor Push(Tensor* list, Tensor* item) {
    const TensorValue values[] = {TensorValue(list), TensorValue(item)};
    OpKernelContext::Params params;
    params.device = &device_;
    params.op_kernel = kernel_.get();
    params.inputs = values;
    OpKernelContext ctx(&params);
    device_.Compute(kernel_.get(), &ctx);
    EXPECT_TRUE(ctx.status().ok()) << ctx.status();
    return *ctx.mutable_output(0);
  }

  CpuDevice device_{CpuDeviceOptions()};
  std::unique_ptr<OpKernel> kernel_;
};

TEST_F(InPlaceTest, PushBackOnASolelyOwnedListReusesItsStorage) {
  Tensor list = VariantScalar(TensorList(DT_FLOAT, PartialTensorShape({})));
  TensorList* l = list.scalar<Variant>()().get<TensorList>();
  l->tensors().reserve(4);
  const Tensor* storage = l->tensors().data();
  Tensor item(1.0f);
  Tensor out = Push(&list, &item);
  EXPECT_TRUE(out.SharesBufferWith(list));
  EXPECT_EQ(out.scalar<Variant>()().get<TensorList>(), l);
  EXPECT_EQ(l->tensors().data(), storage);
  EXPECT_EQ(l->tensors().size(), 1u);
}

TEST_F(InPlaceTest, PushBackOnASharedListCopiesIt) {
  Tensor list = VariantScalar(TensorList(DT_FLOAT, PartialTensorShape({})));
  const TensorList other = *list.scalar<Variant>()().get<TensorList>();
  Tensor item(1.0f);
  Tensor out = Push(&list, &item);
  EXPECT_FALSE(out.SharesBufferWith(list));
  EXPECT_EQ(out.scalar<Variant>()().get<TensorList>()->tensors().size(), 1u);
  EXPECT_TRUE(other.tensors().empty());
  // A second reference to the tensor's buffer also keeps it from changing.
  Tensor alias = list;
  Tensor out2 = Push(&list, &item);
  EXPECT_FALSE(out2.SharesBufferWith(list));
  EXPECT_TRUE(other.tensors().empty());
}

TEST(TensorListTest, CopiesShareStorageUntilCopied) {
  TensorList a(DT_INT32, PartialTensorShape({}));
  a.tensors().push_back(Tensor(int32_t{1}));
  EXPECT_TRUE(a.RefCountIsOne());
  TensorList b = a;
  EXPECT_FALSE(a.RefCountIsOne());
  EXPECT_EQ(&a.tensors(), &b.tensors());
  TensorList c = b.Copy();
  EXPECT_TRUE(c.RefCountIsOne());
  EXPECT_NE(&c.tensors(), &b.tensors());
  EXPECT_EQ(c.tensors().size(), 1u);
  Variant v = a;
  EXPECT_EQ(v.TypeName(), "TensorList");
  EXPECT_THAT(v.DebugString(), HasSubstr("element_dtype: int32"));
}

}  // namespace
}  // namespace minflow
