// Scope: where the C++ API adds ops (TensorFlow's cc/framework/scope.h).
// A Scope names a graph, a name prefix, the control dependencies and the
// device of the ops made with it, and a status shared by every scope of the
// graph: the first error sticks and later ops become no-ops.
//
//   Scope root = Scope::NewRootScope();
//   auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
//   auto y = ops::MatMul(root, x, w, ops::MatMul::TransposeB(true));
//   MF_RETURN_IF_ERROR(root.status());
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "minflow/cc/framework/ops.h"
#include "minflow/core/status.h"

namespace minflow {

class Graph;
class GraphDef;
class ShapeRefiner;

// A cheap value: copies share the graph, the status and the name counters
// of their name prefix. Not thread-safe: build a graph from one thread.
class Scope {
 public:
  Scope(const Scope& other);
  Scope& operator=(const Scope& other);
  ~Scope();

  // A new graph (over the global op registry) with an OK status.
  static Scope NewRootScope();
  // A root scope over an existing `graph`, with `refiner` holding the shapes
  // of all its nodes (TensorFlow's NewInternalScope, for the C API). Neither
  // is owned: both must outlive every copy of the scope. The names of the
  // graph's nodes, and their '/' prefixes, count as taken.
  static Scope NewRootScopeOver(Graph* graph, ShapeRefiner* refiner);

  // A child scope: ops made in it are named "<prefix>/<child>/<op>".
  // Repeated child names are made unique as TensorFlow does ("b", "b_1").
  // An empty name gives a scope with this one's prefix and counters.
  Scope NewSubScope(const std::string& child_scope_name) const;
  // The next op made with the returned scope is called `op_name` (made
  // unique in this scope's prefix, as above).
  Scope WithOpName(const std::string& op_name) const;
  // Ops made with the returned scope run after `control_deps` (added to
  // this scope's own).
  Scope WithControlDependencies(absl::Span<const Operation> control_deps) const;
  Scope WithControlDependencies(const Output& control_dep) const;
  Scope WithNoControlDependencies() const;
  // Ops made with the returned scope request `device` ("/device:CPU:0").
  Scope WithDevice(const std::string& device) const;

  // A name for an op made now: the WithOpName name, or `default_name`, made
  // unique and prefixed.
  std::string GetUniqueNameForOp(const std::string& default_name) const;

  // Records `s` unless an error is already recorded (the first one sticks).
  void UpdateStatus(const Status& s) const;
  Status status() const;
  bool ok() const;

  const std::vector<Operation>& control_deps() const;
  const std::string& device() const;

  // The graph, as the rest of minflow uses it (a Session can run it).
  Graph* graph() const;
  std::shared_ptr<Graph> graph_as_shared_ptr() const;
  // The refiner holding the shapes of every op added so far.
  ShapeRefiner* refiner() const;
  // The graph as a GraphDef; the scope's status if it is an error.
  Status ToGraphDef(GraphDef* graph_def) const;

 private:
  struct Impl;
  explicit Scope(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace minflow
