// Test and benchmark helper: builds TensorFlow 1 GraphDefs, while loops
// included, node by node.
#ifndef MINFLOW_TESTS_TESTLIB_TF1_GRAPH_BUILDER_H_
#define MINFLOW_TESTS_TESTLIB_TF1_GRAPH_BUILDER_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "minflow/attr_value.pb.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph.pb.h"

namespace minflow {
namespace testing {

// Appends NodeDefs to a GraphDef the way TensorFlow 1's Python builders
// shape them, control flow included (a test and benchmark helper).
class Tf1GraphBuilder {
 public:
  std::string Add(const std::string& name, const std::string& op,
                  std::vector<std::string> inputs, DataType t = DT_INT32,
                  bool typed = true) {
    NodeDef* n = graph_.add_node();
    n->set_name(name);
    n->set_op(op);
    for (const std::string& in : inputs) n->add_input(in);
    if (typed) AddNodeAttr("T", t, n);
    return name;
  }
  // A node with no attrs yet: the caller adds them (AddNodeAttr).
  NodeDef* Node(const std::string& name, const std::string& op,
                std::vector<std::string> inputs = {}) {
    NodeDef* n = graph_.add_node();
    n->set_name(name);
    n->set_op(op);
    for (const std::string& in : inputs) n->add_input(in);
    return n;
  }
  std::string Const(const std::string& name, int32_t value,
                    std::vector<std::string> controls = {}) {
    return Const(name, Tensor(value), std::move(controls));
  }
  std::string Const(const std::string& name, const Tensor& value,
                    std::vector<std::string> controls = {}) {
    NodeDef* n = graph_.add_node();
    n->set_name(name);
    n->set_op("Const");
    for (const std::string& c : controls) n->add_input("^" + c);
    AddNodeAttr("dtype", value.dtype(), n);
    AttrValue v;
    value.AsProtoTensorContent(v.mutable_tensor());
    AddNodeAttr("value", v, n);
    return name;
  }
  std::string Placeholder(const std::string& name, DataType dtype) {
    NodeDef* n = graph_.add_node();
    n->set_name(name);
    n->set_op("Placeholder");
    AddNodeAttr("dtype", dtype, n);
    return name;
  }
  std::string Merge(const std::string& name, std::vector<std::string> inputs,
                    DataType t = DT_INT32) {
    const int64_t n = static_cast<int64_t>(inputs.size());
    Add(name, "Merge", std::move(inputs), t);
    AddNodeAttr("N", n, graph_.mutable_node(graph_.node_size() - 1));
    return name;
  }
  std::string Enter(const std::string& name, const std::string& input,
                    const std::string& frame, bool is_constant = false,
                    int parallel_iterations = 10, DataType t = DT_INT32) {
    Add(name, "Enter", {input}, t);
    NodeDef* n = graph_.mutable_node(graph_.node_size() - 1);
    AddNodeAttr("frame_name", frame, n);
    AddNodeAttr("is_constant", is_constant, n);
    AddNodeAttr("parallel_iterations", int64_t{parallel_iterations}, n);
    return name;
  }

  // tf.while_loop: loop variables start at `inits` (tensors of the current
  // frame); `cond` makes the predicate from the variables, `body` their
  // next values. Both get the variables' tensor names in the frame and a
  // node to hang Consts on (a Const inside a frame needs a control input
  // from it). `types` are the variables' dtypes (all int32 when empty).
  // Returns the Exit nodes, one per variable.
  using CondFn = std::function<std::string(const std::vector<std::string>& vars,
                                           const std::string& pivot)>;
  using BodyFn = std::function<std::vector<std::string>(
      const std::vector<std::string>& vars, const std::string& pivot)>;
  std::vector<std::string> While(const std::string& frame,
                                 const std::vector<std::string>& inits,
                                 const CondFn& cond, const BodyFn& body,
                                 int parallel_iterations = 10,
                                 std::vector<DataType> types = {}) {
    const std::string p = frame + "/";
    types.resize(inits.size(), DT_INT32);
    std::vector<std::string> merges, idents, exits;
    for (size_t k = 0; k < inits.size(); ++k) {
      const std::string enter =
          Enter(absl::StrCat(p, "enter", k), inits[k], frame, false,
                parallel_iterations, types[k]);
      merges.push_back(Merge(absl::StrCat(p, "merge", k),
                             {enter, absl::StrCat(p, "next", k)}, types[k]));
    }
    const std::string pred = cond(merges, merges[0]);
    const std::string loop_cond =
        Add(p + "loop_cond", "LoopCond", {pred}, DT_INT32, /*typed=*/false);
    for (size_t k = 0; k < inits.size(); ++k) {
      const std::string sw = Add(absl::StrCat(p, "switch", k), "Switch",
                                 {merges[k], loop_cond}, types[k]);
      exits.push_back(
          Add(absl::StrCat(p, "exit", k), "Exit", {sw + ":0"}, types[k]));
      idents.push_back(
          Add(absl::StrCat(p, "ident", k), "Identity", {sw + ":1"}, types[k]));
    }
    const std::vector<std::string> next = body(idents, idents[0]);
    for (size_t k = 0; k < inits.size(); ++k) {
      Add(absl::StrCat(p, "next", k), "NextIteration", {next[k]}, types[k]);
    }
    return exits;
  }

  const GraphDef& graph() const { return graph_; }

 private:
  GraphDef graph_;
};

// i = start; while i < limit: i += 1, with `start` and `limit` int32
// Placeholders; the count is "count/exit0".
inline GraphDef CountingLoopGraph(int parallel_iterations = 10) {
  Tf1GraphBuilder b;
  b.Placeholder("start", DT_INT32);
  b.Placeholder("limit", DT_INT32);
  b.While(
      "count", {"start"},
      [&](const std::vector<std::string>& v, const std::string&) {
        const std::string limit =
            b.Enter("count/limit", "limit", "count", /*is_constant=*/true,
                    parallel_iterations);
        return b.Add("count/less", "Less", {v[0], limit});
      },
      [&](const std::vector<std::string>& v, const std::string& pivot) {
        b.Const("count/one", 1, {pivot});
        return std::vector<std::string>{
            b.Add("count/add", "AddV2", {v[0], "count/one"})};
      },
      parallel_iterations);
  return b.graph();
}

// The counting loop as TensorFlow 2 exports it: a StatelessWhile "loop"
// over (i, limit) fed by the int32 Placeholders "start" and "limit"; its
// cond is i < limit, its body adds 1 to i ("loop:0" is the count).
inline GraphDef FunctionalCountingLoopGraph() {
  GraphDef graph;
  google::protobuf::TextFormat::ParseFromString(R"txt(
    node { name: "start" op: "Placeholder"
           attr { key: "dtype" value { type: DT_INT32 } } }
    node { name: "limit" op: "Placeholder"
           attr { key: "dtype" value { type: DT_INT32 } } }
    node { name: "loop" op: "StatelessWhile" input: "start" input: "limit"
           attr { key: "T" value { list { type: DT_INT32 type: DT_INT32 } } }
           attr { key: "cond" value { func { name: "less" } } }
           attr { key: "body" value { func { name: "inc" } } } }
    library {
      function {
        signature { name: "less"
          input_arg { name: "i" type: DT_INT32 }
          input_arg { name: "n" type: DT_INT32 }
          output_arg { name: "ok" type: DT_BOOL } }
        node_def { name: "l" op: "Less" input: "i" input: "n"
                   attr { key: "T" value { type: DT_INT32 } } }
        ret { key: "ok" value: "l:z:0" }
      }
      function {
        signature { name: "inc"
          input_arg { name: "i" type: DT_INT32 }
          input_arg { name: "n" type: DT_INT32 }
          output_arg { name: "next" type: DT_INT32 }
          output_arg { name: "same" type: DT_INT32 } }
        node_def { name: "one" op: "Const"
          attr { key: "dtype" value { type: DT_INT32 } }
          attr { key: "value" value {
            tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
        node_def { name: "add" op: "AddV2" input: "i" input: "one:output:0"
                   attr { key: "T" value { type: DT_INT32 } } }
        ret { key: "next" value: "add:z:0" }
        ret { key: "same" value: "n" }
      }
    })txt",
                                                &graph);
  return graph;
}

// for i in range(16): last = matmul(a, a), a being size x size of 0.5:
// iterations that do not depend on each other. "loop/exit0" is 16,
// "loop/exit1" the last product (every element size / 4).
inline GraphDef IndependentMatMulLoopGraph(int64_t size,
                                           int parallel_iterations) {
  Tf1GraphBuilder b;
  Tensor a(DT_FLOAT, TensorShape({size, size}));
  a.flat<float>().setConstant(0.5f);
  Tensor first(DT_FLOAT, TensorShape({size, size}));
  first.flat<float>().setZero();
  b.Const("a", a);
  b.Const("zero", 0);
  b.Const("first", first);
  b.While(
      "loop", {"zero", "first"},
      [&](const std::vector<std::string>& v, const std::string& pivot) {
        b.Const("loop/sixteen", 16, {pivot});
        return b.Add("loop/less", "Less", {v[0], "loop/sixteen"});
      },
      [&](const std::vector<std::string>& v, const std::string& pivot) {
        b.Const("loop/one", 1, {pivot});
        const std::string a_in =
            b.Enter("loop/a", "a", "loop", true, parallel_iterations, DT_FLOAT);
        // Like tf.while_loop, a body op whose inputs are all loop
        // invariants waits on the pivot; else it would run once more after
        // the last iteration and start another.
        b.Add("loop/matmul", "MatMul", {a_in, a_in, "^" + pivot}, DT_FLOAT);
        return std::vector<std::string>{
            b.Add("loop/add", "AddV2", {v[0], "loop/one"}), "loop/matmul"};
      },
      parallel_iterations, {DT_INT32, DT_FLOAT});
  return b.graph();
}

}  // namespace testing
}  // namespace minflow

#endif  // MINFLOW_TESTS_TESTLIB_TF1_GRAPH_BUILDER_H_
