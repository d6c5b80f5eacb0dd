// Test and benchmark helper: builds TensorFlow 1 GraphDefs, while loops
// included, node by node.
#ifndef MINFLOW_TESTS_TESTLIB_TF1_GRAPH_BUILDER_H_
#define MINFLOW_TESTS_TESTLIB_TF1_GRAPH_BUILDER_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
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

}  // namespace testing
}  // namespace minflow

#endif  // MINFLOW_TESTS_TESTLIB_TF1_GRAPH_BUILDER_H_
