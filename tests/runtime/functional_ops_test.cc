// Graphs with a function library, run through a Session: calls
// (PartitionedCall, StatefulPartitionedCall, a node whose op is a
// function, a function calling a function) and functional control flow
// (If, Case, While and their Stateless twins, nested in each other), each
// checked against the values the graph computes, and the errors a broken
// library or a recursive function gives.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/graph.pb.h"
#include "minflow/runtime/session.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;
using ::minflow::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The library every test graph shares.
constexpr char kLibrary[] = R"pb(
  library {
    function {
      signature {
        name: "add_one"
        input_arg { name: "x" type_attr: "T" }
        output_arg { name: "y" type_attr: "T" }
        attr { name: "T" type: "type" }
      }
      node_def {
        name: "one"
        op: "Const"
        attr {
          key: "dtype"
          value { placeholder: "T" }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_FLOAT
              tensor_shape {}
              float_val: 1
            }
          }
        }
      }
      node_def {
        name: "add"
        op: "AddV2"
        input: "x"
        input: "one:output:0"
        attr {
          key: "T"
          value { placeholder: "T" }
        }
      }
      ret { key: "y" value: "add:z:0" }
    }
    function {
      signature {
        name: "add_two"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "first"
        op: "PartitionedCall"
        input: "x"
        attr {
          key: "Tin"
          value { list { type: DT_FLOAT } }
        }
        attr {
          key: "Tout"
          value { list { type: DT_FLOAT } }
        }
        attr {
          key: "f"
          value {
            func {
              name: "add_one"
              attr {
                key: "T"
                value { type: DT_FLOAT }
              }
            }
          }
        }
      }
      node_def {
        name: "second"
        op: "add_one"
        input: "first:output:0"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "y" value: "second:y:0" }
    }
    function {
      signature {
        name: "double"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "d"
        op: "AddV2"
        input: "x"
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "y" value: "d:z:0" }
    }
    function {
      signature {
        name: "negate"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "n"
        op: "Neg"
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "y" value: "n:y:0" }
    }
    function {
      signature {
        name: "ten"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "c"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_FLOAT }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_FLOAT
              tensor_shape {}
              float_val: 10
            }
          }
        }
      }
      ret { key: "y" value: "c:output:0" }
    }
    function {
      signature {
        name: "less_than_n"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "n" type: DT_INT32 }
        input_arg { name: "acc" type: DT_FLOAT }
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
        name: "accumulate"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "n" type: DT_INT32 }
        input_arg { name: "acc" type: DT_FLOAT }
        output_arg { name: "i_next" type: DT_INT32 }
        output_arg { name: "n_same" type: DT_INT32 }
        output_arg { name: "acc_next" type: DT_FLOAT }
      }
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
        name: "inc"
        op: "AddV2"
        input: "i"
        input: "one:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      node_def {
        name: "f"
        op: "Cast"
        input: "inc:z:0"
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
        name: "sum"
        op: "AddV2"
        input: "acc"
        input: "f:y:0"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "i_next" value: "inc:z:0" }
      ret { key: "n_same" value: "n" }
      ret { key: "acc_next" value: "sum:z:0" }
    }
  }
)pb";

constexpr char kFloatInput[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
)pb";

GraphDef Graph(const std::string& nodes) {
  return ParseTextProtoOrDie<GraphDef>(
      absl::StrCat(kFloatInput, nodes, kLibrary));
}

Tensor Scalar(float v) {
  Tensor t(DT_FLOAT, TensorShape({}));
  t.scalar<float>()() = v;
  return t;
}
Tensor IntScalar(int32_t v) {
  Tensor t(DT_INT32, TensorShape({}));
  t.scalar<int32_t>()() = v;
  return t;
}
Tensor Bool(bool v) {
  Tensor t(DT_BOOL, TensorShape({}));
  t.scalar<bool>()() = v;
  return t;
}

// Runs `graph` with `feeds` and returns the fetched scalars as floats;
// an error fails the test and gives no values.
StatusOr<std::vector<float>> TryRun(
    const GraphDef& graph,
    const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches) {
  MF_ASSIGN_OR_RETURN(auto session, Session::Create(graph, SessionOptions()));
  std::vector<Tensor> outputs;
  MF_RETURN_IF_ERROR(session->Run(feeds, fetches, {}, &outputs));
  std::vector<float> values;
  for (const Tensor& t : outputs) {
    if (t.dtype() == DT_INT32) {
      values.push_back(static_cast<float>(t.scalar<int32_t>()()));
    } else {
      values.push_back(t.scalar<float>()());
    }
  }
  return values;
}

std::vector<float> RunFloats(
    const GraphDef& graph,
    const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches) {
  StatusOr<std::vector<float>> values = TryRun(graph, feeds, fetches);
  if (!values.ok()) {
    ADD_FAILURE() << values.status();
    return {};
  }
  return *std::move(values);
}

// A node `name` = `op`(input) calling `f` with T=float. (Fragments of
// text protos use the "txt" delimiter, which formatters leave alone.)
std::string Call(const std::string& name, const std::string& op,
                 const std::string& input, const std::string& f) {
  return absl::Substitute(R"txt(
    node {
      name: "$0" op: "$1" input: "$2"
      attr { key: "Tin" value { list { type: DT_FLOAT } } }
      attr { key: "Tout" value { list { type: DT_FLOAT } } }
      attr { key: "f" value { func {
        name: "$3" attr { key: "T" value { type: DT_FLOAT } } } } }
    })txt",
                          name, op, input, f);
}

TEST(FunctionCallTest, PartitionedCallsAndDirectCallsRunTheirFunctions) {
  const GraphDef graph =
      Graph(Call("p", "PartitionedCall", "x", "add_one") +
            Call("s", "StatefulPartitionedCall", "p", "add_one") +
            R"pb(node {
                   name: "direct"
                   op: "add_one"
                   input: "s"
                   attr {
                     key: "T"
                     value { type: DT_FLOAT }
                   }
                 })pb");
  EXPECT_THAT(RunFloats(graph, {{"x", Scalar(1)}}, {"p", "s", "direct"}),
              ElementsAre(2, 3, 4));
}

TEST(FunctionCallTest, AFunctionCallsFunctions) {
  // add_two calls add_one through a PartitionedCall and directly.
  const GraphDef graph = Graph(Call("call", "PartitionedCall", "x", "add_two"));
  EXPECT_THAT(RunFloats(graph, {{"x", Scalar(5)}}, {"call"}), ElementsAre(7));
}

TEST(FunctionCallTest, EverySignatureSeesTheLibrary) {
  const GraphDef graph = Graph(Call("call", "PartitionedCall", "x", "add_two"));
  auto session = Session::Create(graph, SessionOptions());
  MF_ASSERT_OK(session.status());
  // Calling it twice checks the library survives every signature's copy.
  for (float v : {1.0f, 2.0f}) {
    std::vector<Tensor> out;
    MF_ASSERT_OK((*session)->Run({{"x", Scalar(v)}}, {"call"}, {}, &out));
    EXPECT_EQ(out[0].scalar<float>()(), v + 2);
  }
}

std::string If(const std::string& op, const std::string& cond_type) {
  return absl::Substitute(R"txt(
    node {
      name: "pred" op: "Placeholder"
      attr { key: "dtype" value { type: $1 } }
    }
    node {
      name: "pick" op: "$0" input: "pred" input: "x"
      attr { key: "Tcond" value { type: $1 } }
      attr { key: "Tin" value { list { type: DT_FLOAT } } }
      attr { key: "Tout" value { list { type: DT_FLOAT } } }
      attr { key: "then_branch" value { func { name: "double" } } }
      attr { key: "else_branch" value { func { name: "negate" } } }
    })txt",
                          op, cond_type);
}

TEST(FunctionalIfTest, RunsTheBranchTheConditionPicks) {
  for (const char* op : {"If", "StatelessIf"}) {
    const GraphDef graph = Graph(If(op, "DT_BOOL"));
    EXPECT_THAT(
        RunFloats(graph, {{"x", Scalar(3)}, {"pred", Bool(true)}}, {"pick"}),
        ElementsAre(6))
        << op;
    EXPECT_THAT(
        RunFloats(graph, {{"x", Scalar(3)}, {"pred", Bool(false)}}, {"pick"}),
        ElementsAre(-3))
        << op;
  }
}

TEST(FunctionalIfTest, ANumericConditionIsTrueWhenNotZero) {
  const GraphDef graph = Graph(If("If", "DT_INT32"));
  EXPECT_THAT(
      RunFloats(graph, {{"x", Scalar(3)}, {"pred", IntScalar(7)}}, {"pick"}),
      ElementsAre(6));
  EXPECT_THAT(
      RunFloats(graph, {{"x", Scalar(3)}, {"pred", IntScalar(0)}}, {"pick"}),
      ElementsAre(-3));
}

std::string Case(const std::string& op) {
  return absl::Substitute(R"txt(
    node {
      name: "index" op: "Placeholder"
      attr { key: "dtype" value { type: DT_INT32 } }
    }
    node {
      name: "case" op: "$0" input: "index" input: "x"
      attr { key: "Tin" value { list { type: DT_FLOAT } } }
      attr { key: "Tout" value { list { type: DT_FLOAT } } }
      attr { key: "branches" value { list {
        func { name: "double" } func { name: "negate" } func { name: "ten" }
      } } }
    })txt",
                          op);
}

TEST(FunctionalCaseTest, RunsTheIndexedBranchAndTheLastOutOfRange) {
  for (const char* op : {"Case", "StatelessCase"}) {
    const GraphDef graph = Graph(Case(op));
    const std::vector<std::pair<int, float>> expected = {
        {0, 8}, {1, -4}, {2, 10}, {3, 10}, {-1, 10}};
    for (const auto& [index, value] : expected) {
      EXPECT_THAT(
          RunFloats(graph, {{"x", Scalar(4)}, {"index", IntScalar(index)}},
                    {"case"}),
          ElementsAre(value))
          << op << " index " << index;
    }
  }
}

// sum_{k=1..n} k, added to x, by a While over (i, n, acc).
std::string While(const std::string& op, const std::string& name,
                  const std::string& n_input, const std::string& acc_input) {
  return absl::Substitute(R"txt(
    node {
      name: "$1/zero" op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value {
        tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } }
    }
    node {
      name: "$1" op: "$0" input: "$1/zero" input: "$2" input: "$3"
      attr { key: "T" value {
        list { type: DT_INT32 type: DT_INT32 type: DT_FLOAT } } }
      attr { key: "cond" value { func { name: "less_than_n" } } }
      attr { key: "body" value { func { name: "accumulate" } } }
      attr { key: "parallel_iterations" value { i: 4 } }
    })txt",
                          op, name, n_input, acc_input);
}

constexpr char kN[] = R"pb(
  node {
    name: "n"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_INT32 }
    }
  })pb";

TEST(FunctionalWhileTest, LoopsUntilTheConditionIsFalse) {
  for (const char* op : {"While", "StatelessWhile"}) {
    const GraphDef graph = Graph(kN + While(op, "loop", "n", "x"));
    EXPECT_THAT(RunFloats(graph, {{"x", Scalar(0.5)}, {"n", IntScalar(10)}},
                          {"loop:0", "loop:2"}),
                ElementsAre(10, 55.5))
        << op;
    // A condition false at once: the inputs come out unchanged.
    EXPECT_THAT(RunFloats(graph, {{"x", Scalar(0.5)}, {"n", IntScalar(0)}},
                          {"loop:0", "loop:2"}),
                ElementsAre(0, 0.5))
        << op;
  }
}

TEST(FunctionalWhileTest, HundredThousandIterations) {
  const GraphDef graph = Graph(kN + While("While", "loop", "n", "x"));
  EXPECT_THAT(RunFloats(graph, {{"x", Scalar(0)}, {"n", IntScalar(100000)}},
                        {"loop:0"}),
              ElementsAre(100000));
}

TEST(FunctionalWhileTest, LoopsAndConditionalsNest) {
  // outer = While over (i, n, acc) with acc from an If of x; its result
  // feeds a Case whose last branch ignores its input.
  const GraphDef graph =
      Graph(kN + If("If", "DT_BOOL") + While("While", "loop", "n", "pick") +
            R"pb(
              node {
                name: "loop_result"
                op: "Identity"
                input: "loop:2"
                attr {
                  key: "T"
                  value { type: DT_FLOAT }
                }
              })pb" +
            absl::StrCat(R"pb(
              node {
                name: "index"
                op: "Placeholder"
                attr {
                  key: "dtype"
                  value { type: DT_INT32 }
                }
              }
              node {
                name: "case"
                op: "Case"
                input: "index"
                input: "loop_result"
                attr {
                  key: "Tin"
                  value { list { type: DT_FLOAT } }
                }
                attr {
                  key: "Tout"
                  value { list { type: DT_FLOAT } }
                }
                attr {
                  key: "branches"
                  value {
                    list {
                      func { name: "double" }
                      func { name: "ten" }
                    }
                  }
                }
              })pb"));
  EXPECT_THAT(RunFloats(graph,
                        {{"x", Scalar(1)},
                         {"pred", Bool(true)},
                         {"n", IntScalar(3)},
                         {"index", IntScalar(0)}},
                        {"case"}),
              ElementsAre(2 * (2 + 6)));
  EXPECT_THAT(RunFloats(graph,
                        {{"x", Scalar(1)},
                         {"pred", Bool(false)},
                         {"n", IntScalar(4)},
                         {"index", IntScalar(1)}},
                        {"case"}),
              ElementsAre(10));
}

// A function whose body is a While over a function whose body is a While:
// nested loops from functions, and If inside a loop body.
constexpr char kNestedLibrary[] = R"pb(
  node {
    name: "x"
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
    name: "outer"
    op: "While"
    input: "zero"
    input: "zero"
    input: "x"
    attr {
      key: "T"
      value { list { type: DT_INT32 type: DT_INT32 type: DT_INT32 } }
    }
    attr {
      key: "cond"
      value { func { name: "i_below_n" } }
    }
    attr {
      key: "body"
      value { func { name: "outer_body" } }
    }
  }
  library {
    function {
      signature {
        name: "i_below_n"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "total" type: DT_INT32 }
        input_arg { name: "n" type: DT_INT32 }
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
        name: "outer_body"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "total" type: DT_INT32 }
        input_arg { name: "n" type: DT_INT32 }
        output_arg { name: "i_next" type: DT_INT32 }
        output_arg { name: "total_next" type: DT_INT32 }
        output_arg { name: "n_same" type: DT_INT32 }
      }
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
      node_def {
        name: "inc"
        op: "AddV2"
        input: "i"
        input: "one:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      # inner loop: j from 0 to i, adding 1 to total each time
      node_def {
        name: "inner"
        op: "StatelessWhile"
        input: "zero:output:0"
        input: "total"
        input: "i"
        attr {
          key: "T"
          value { list { type: DT_INT32 type: DT_INT32 type: DT_INT32 } }
        }
        attr {
          key: "cond"
          value { func { name: "i_below_n" } }
        }
        attr {
          key: "body"
          value { func { name: "count_odd" } }
        }
      }
      ret { key: "i_next" value: "inc:z:0" }
      ret { key: "total_next" value: "inner:output:1" }
      ret { key: "n_same" value: "n" }
    }
    function {
      signature {
        name: "count_odd"
        input_arg { name: "j" type: DT_INT32 }
        input_arg { name: "total" type: DT_INT32 }
        input_arg { name: "n" type: DT_INT32 }
        output_arg { name: "j_next" type: DT_INT32 }
        output_arg { name: "total_next" type: DT_INT32 }
        output_arg { name: "n_same" type: DT_INT32 }
      }
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
        name: "two"
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
              int_val: 2
            }
          }
        }
      }
      node_def {
        name: "next"
        op: "AddV2"
        input: "j"
        input: "one:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      node_def {
        name: "parity"
        op: "FloorMod"
        input: "j"
        input: "two:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      node_def {
        name: "counted"
        op: "StatelessIf"
        input: "parity:z:0"
        input: "total"
        attr {
          key: "Tcond"
          value { type: DT_INT32 }
        }
        attr {
          key: "Tin"
          value { list { type: DT_INT32 } }
        }
        attr {
          key: "Tout"
          value { list { type: DT_INT32 } }
        }
        attr {
          key: "then_branch"
          value { func { name: "plus_one" } }
        }
        attr {
          key: "else_branch"
          value { func { name: "same" } }
        }
      }
      ret { key: "j_next" value: "next:z:0" }
      ret { key: "total_next" value: "counted:output:0" }
      ret { key: "n_same" value: "n" }
    }
    function {
      signature {
        name: "plus_one"
        input_arg { name: "x" type: DT_INT32 }
        output_arg { name: "y" type: DT_INT32 }
      }
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
        input: "x"
        input: "one:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      ret { key: "y" value: "add:z:0" }
    }
    function {
      signature {
        name: "same"
        input_arg { name: "x" type: DT_INT32 }
        output_arg { name: "y" type: DT_INT32 }
      }
      ret { key: "y" value: "x" }
    }
  }
)pb";

TEST(FunctionalWhileTest, NestedLoopsWithAConditionalInside) {
  // total = sum over i < n of the odd j < i.
  const GraphDef graph = ParseTextProtoOrDie<GraphDef>(kNestedLibrary);
  for (int n : {0, 1, 5, 9}) {
    int expected = 0;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < i; ++j) expected += j % 2;
    }
    EXPECT_THAT(RunFloats(graph, {{"x", IntScalar(n)}}, {"outer:1"}),
                ElementsAre(expected))
        << "n = " << n;
  }
}

TEST(FunctionErrorsTest, ARecursiveFunctionIsAClearError) {
  GraphDef graph = Graph(Call("call", "PartitionedCall", "x", "forever"));
  FunctionDef* f = graph.mutable_library()->add_function();
  *f = ParseTextProtoOrDie<FunctionDef>(R"pb(
    signature {
      name: "forever"
      input_arg { name: "x" type: DT_FLOAT }
      output_arg { name: "y" type: DT_FLOAT }
      attr { name: "T" type: "type" }
    }
    node_def {
      name: "again"
      op: "forever"
      input: "x"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    ret { key: "y" value: "again:y:0" }
  )pb");
  EXPECT_THAT(Session::Create(graph, SessionOptions()).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("nest more than 32 deep"),
                             HasSubstr("'forever'"))));
}

TEST(FunctionErrorsTest, ABrokenLibraryFailsAtImportNamingFunctionAndNode) {
  GraphDef graph = Graph(Call("call", "PartitionedCall", "x", "add_one"));
  graph.mutable_library()->mutable_function(0)->mutable_ret()->clear();
  EXPECT_THAT(
      Session::Create(graph, SessionOptions()).status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("function 'add_one'"), HasSubstr("no `ret`"))));
  graph = Graph(Call("call", "PartitionedCall", "x", "add_one"));
  graph.mutable_library()->mutable_function(0)->mutable_node_def(1)->set_name(
      "one");
  EXPECT_THAT(Session::Create(graph, SessionOptions()).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("function 'add_one', node 'one'"),
                             HasSubstr("two nodes"))));
}

TEST(FunctionErrorsTest, MissingFunctionOrWrongTypesNameTheCall) {
  const GraphDef missing = Graph(Call("call", "PartitionedCall", "x", "nope"));
  EXPECT_THAT(Session::Create(missing, SessionOptions()).status(),
              StatusIs(absl::StatusCode::kNotFound,
                       AllOf(HasSubstr("No function named 'nope'"),
                             HasSubstr("call"))));
  // less_than_n takes (int32, int32, float): a float call does not match.
  const GraphDef wrong =
      Graph(Call("call", "PartitionedCall", "x", "less_than_n"));
  EXPECT_THAT(Session::Create(wrong, SessionOptions()).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("Function 'less_than_n' takes"),
                             HasSubstr("{{node call}}"))));
}

}  // namespace
}  // namespace minflow

namespace minflow {
namespace {

// A While whose loop variables include a resource: the body adds one to
// the variable behind the handle each iteration and hands the handle on
// after the update (as TF2's automatic control dependencies do).
constexpr char kResourceLoop[] = R"pb(
  node {
    name: "v"
    op: "VarHandleOp"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "shape"
      value { shape {} }
    }
  }
  node {
    name: "start"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape {}
          float_val: 0.5
        }
      }
    }
  }
  node {
    name: "init"
    op: "AssignVariableOp"
    input: "v"
    input: "start"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "n"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_INT32 }
    }
  }
  node {
    name: "i0"
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
    name: "loop"
    op: "While"
    input: "i0"
    input: "n"
    input: "v"
    attr {
      key: "T"
      value { list { type: DT_INT32 type: DT_INT32 type: DT_RESOURCE } }
    }
    attr {
      key: "cond"
      value { func { name: "below_n" } }
    }
    attr {
      key: "body"
      value { func { name: "add_to_variable" } }
    }
  }
  node {
    name: "read"
    op: "ReadVariableOp"
    input: "loop:2"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  library {
    function {
      signature {
        name: "below_n"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "n" type: DT_INT32 }
        input_arg { name: "v" type: DT_RESOURCE }
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
        name: "add_to_variable"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "n" type: DT_INT32 }
        input_arg { name: "v" type: DT_RESOURCE }
        output_arg { name: "i_next" type: DT_INT32 }
        output_arg { name: "n_out" type: DT_INT32 }
        output_arg { name: "v_out" type: DT_RESOURCE }
        control_output: "add"
      }
      node_def {
        name: "one"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_FLOAT }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_FLOAT
              tensor_shape {}
              float_val: 1
            }
          }
        }
      }
      node_def {
        name: "add"
        op: "AssignAddVariableOp"
        input: "v"
        input: "one:output:0"
        attr {
          key: "dtype"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "one_i"
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
        name: "next"
        op: "AddV2"
        input: "i"
        input: "one_i:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      node_def {
        name: "v_after_add"
        op: "Identity"
        input: "v"
        input: "^add"
        attr {
          key: "T"
          value { type: DT_RESOURCE }
        }
      }
      ret { key: "i_next" value: "next:z:0" }
      ret { key: "n_out" value: "n" }
      ret { key: "v_out" value: "v_after_add:output:0" }
      control_ret { key: "add" value: "add" }
    }
  })pb";

TEST(FunctionalWhileTest, ResourceLoopVariableUpdatesTheVariable) {
  auto session =
      Session::Create(ParseTextProtoOrDie<GraphDef>(kResourceLoop), {});
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  MF_ASSERT_OK((*session)->Run({}, {}, {"init"}, &out));
  Tensor n(DT_INT32, TensorShape({}));
  n.scalar<int32_t>()() = 7;
  MF_ASSERT_OK((*session)->Run({{"n", n}}, {"read"}, {}, &out));
  EXPECT_EQ(out[0].scalar<float>()(), 7.5f);
  // State persists: a second loop adds seven more.
  MF_ASSERT_OK((*session)->Run({{"n", n}}, {"read"}, {}, &out));
  EXPECT_EQ(out[0].scalar<float>()(), 14.5f);
}

}  // namespace
}  // namespace minflow
