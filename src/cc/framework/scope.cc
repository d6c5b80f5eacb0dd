#include "minflow/cc/framework/scope.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "minflow/framework/op.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/graph/shape_refiner.h"
#include "minflow/versions.pb.h"

namespace minflow {

// Note [Scope names]
// Names follow TensorFlow's Scope: each name prefix ("", "a", "a/b") has
// its own counters, shared by every copy of a scope with that prefix. The
// first use of a name takes it as is; later uses get "_1", "_2", ...,
// skipping names already taken ("foo_1" made by hand is not reused). Sub-
// scope names and op names draw on the same counters, so a sub-scope "a"
// and an op "a" in one prefix become "a" and "a_1". The graph checks that
// the final names are unique; a clash with a name made outside these
// counters (WithOpName("x/y")) is an error, not a silent rename.
struct Scope::Impl {
  using NameMap = std::unordered_map<std::string, int>;

  std::shared_ptr<Graph> graph;
  std::shared_ptr<ShapeRefiner> refiner;
  std::shared_ptr<Status> status;
  std::shared_ptr<NameMap> name_map;
  std::string name;     // the prefix, "" at the root
  std::string op_name;  // from WithOpName, unprefixed
  std::vector<Operation> control_deps;
  std::string device;

  // See Note [Scope names].
  std::string GetUniqueName(const std::string& prefix) const {
    auto entry = name_map->find(prefix);
    if (entry == name_map->end()) {
      name_map->emplace(prefix, 0);
      return prefix;
    }
    std::string unique;
    do {
      unique = absl::StrCat(prefix, "_", ++entry->second);
    } while (name_map->count(unique) > 0);
    name_map->emplace(unique, 0);
    return unique;
  }

  std::string Prefixed(const std::string& name_in_scope) const {
    return name.empty() ? name_in_scope
                        : absl::StrCat(name, "/", name_in_scope);
  }
};

Scope::Scope(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Scope::Scope(const Scope& other)
    : impl_(std::make_unique<Impl>(*other.impl_)) {}
Scope& Scope::operator=(const Scope& other) {
  if (this != &other) impl_ = std::make_unique<Impl>(*other.impl_);
  return *this;
}
Scope::~Scope() = default;

Scope Scope::NewRootScope() {
  auto impl = std::make_unique<Impl>();
  impl->graph = std::make_shared<Graph>(OpRegistry::Global());
  VersionDef versions;
  versions.set_producer(kGraphDefVersion);
  impl->graph->set_versions(versions);
  impl->refiner =
      std::make_shared<ShapeRefiner>(kGraphDefVersion, OpRegistry::Global());
  impl->status = std::make_shared<Status>();
  impl->name_map = std::make_shared<Impl::NameMap>();
  return Scope(std::move(impl));
}

Scope Scope::NewRootScopeOver(Graph* graph, ShapeRefiner* refiner) {
  auto impl = std::make_unique<Impl>();
  // Aliasing shared_ptrs with no owner: the caller keeps both alive.
  impl->graph = std::shared_ptr<Graph>(std::shared_ptr<Graph>(), graph);
  impl->refiner =
      std::shared_ptr<ShapeRefiner>(std::shared_ptr<ShapeRefiner>(), refiner);
  impl->status = std::make_shared<Status>();
  impl->name_map = std::make_shared<Impl::NameMap>();
  for (const Node* node : graph->nodes()) {
    const std::string& name = node->name();
    impl->name_map->emplace(name, 0);
    for (size_t slash = name.find('/'); slash != std::string::npos;
         slash = name.find('/', slash + 1)) {
      impl->name_map->emplace(name.substr(0, slash), 0);
    }
  }
  return Scope(std::move(impl));
}

Scope Scope::NewSubScope(const std::string& child_scope_name) const {
  auto impl = std::make_unique<Impl>(*impl_);
  impl->op_name.clear();
  if (child_scope_name.empty()) return Scope(std::move(impl));
  impl->name = impl_->Prefixed(impl_->GetUniqueName(child_scope_name));
  impl->name_map = std::make_shared<Impl::NameMap>();
  return Scope(std::move(impl));
}

Scope Scope::WithOpName(const std::string& op_name) const {
  auto impl = std::make_unique<Impl>(*impl_);
  impl->op_name = op_name;
  return Scope(std::move(impl));
}

Scope Scope::WithControlDependencies(
    absl::Span<const Operation> control_deps) const {
  auto impl = std::make_unique<Impl>(*impl_);
  impl->control_deps.insert(impl->control_deps.end(), control_deps.begin(),
                            control_deps.end());
  return Scope(std::move(impl));
}

Scope Scope::WithControlDependencies(const Output& control_dep) const {
  const Operation op = control_dep.op();
  return WithControlDependencies(absl::MakeConstSpan(&op, 1));
}

Scope Scope::WithNoControlDependencies() const {
  auto impl = std::make_unique<Impl>(*impl_);
  impl->control_deps.clear();
  return Scope(std::move(impl));
}

Scope Scope::WithDevice(const std::string& device) const {
  auto impl = std::make_unique<Impl>(*impl_);
  impl->device = device;
  return Scope(std::move(impl));
}

std::string Scope::GetUniqueNameForOp(const std::string& default_name) const {
  return impl_->Prefixed(impl_->GetUniqueName(
      impl_->op_name.empty() ? default_name : impl_->op_name));
}

void Scope::UpdateStatus(const Status& s) const {
  if (impl_->status->ok()) *impl_->status = s;
}
Status Scope::status() const { return *impl_->status; }
bool Scope::ok() const { return impl_->status->ok(); }

const std::vector<Operation>& Scope::control_deps() const {
  return impl_->control_deps;
}
const std::string& Scope::device() const { return impl_->device; }
Graph* Scope::graph() const { return impl_->graph.get(); }
std::shared_ptr<Graph> Scope::graph_as_shared_ptr() const {
  return impl_->graph;
}
ShapeRefiner* Scope::refiner() const { return impl_->refiner.get(); }

Status Scope::ToGraphDef(GraphDef* graph_def) const {
  MF_RETURN_IF_ERROR(status());
  impl_->graph->ToGraphDef(graph_def);
  return OkStatus();
}

}  // namespace minflow
