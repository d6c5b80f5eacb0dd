#include "minflow/cc/framework/client_session.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"

namespace minflow {

struct ClientSession::Impl {
  Impl(const Scope& s, const SessionOptions& o) : scope(s), options(o) {}

  // The session over the graph as it is now: made again when ops were
  // added since (a Session holds one GraphDef; TensorFlow's would Extend).
  StatusOr<Session*> CurrentSession() {
    absl::MutexLock lock(&mu);
    const int ids = scope.graph()->num_node_ids();
    if (session == nullptr || ids != node_ids_in_session) {
      GraphDef graph_def;
      MF_RETURN_IF_ERROR(scope.ToGraphDef(&graph_def));
      MF_ASSIGN_OR_RETURN(session, Session::Create(graph_def, options));
      node_ids_in_session = ids;
    }
    return session.get();
  }

  const Scope scope;
  const SessionOptions options;
  absl::Mutex mu;
  std::unique_ptr<Session> session ABSL_GUARDED_BY(mu);
  int node_ids_in_session ABSL_GUARDED_BY(mu) = 0;
};

ClientSession::ClientSession(const Scope& scope, const SessionOptions& options)
    : impl_(std::make_unique<Impl>(scope, options)) {}

ClientSession::~ClientSession() = default;

Status ClientSession::Run(const std::vector<Output>& fetch_outputs,
                          std::vector<Tensor>* outputs) const {
  return Run(FeedType{}, fetch_outputs, {}, outputs);
}

Status ClientSession::Run(const FeedType& inputs,
                          const std::vector<Output>& fetch_outputs,
                          std::vector<Tensor>* outputs) const {
  return Run(inputs, fetch_outputs, {}, outputs);
}

Status ClientSession::Run(const FeedType& inputs,
                          const std::vector<Output>& fetch_outputs,
                          const std::vector<Operation>& run_outputs,
                          std::vector<Tensor>* outputs) const {
  MF_RETURN_IF_ERROR(impl_->scope.status());
  std::vector<std::pair<std::string, Tensor>> feeds;
  feeds.reserve(inputs.size());
  for (const auto& [output, value] : inputs) {
    MF_RETURN_IF_ERROR(value.status);
    if (output.node() == nullptr) {
      return errors::InvalidArgument(
          "ClientSession::Run: a feed is a null "
          "Output (of an op that failed)");
    }
    feeds.emplace_back(output.name(), value.tensor);
  }
  std::vector<std::string> fetches;
  fetches.reserve(fetch_outputs.size());
  for (const Output& output : fetch_outputs) {
    if (output.node() == nullptr) {
      return errors::InvalidArgument(
          "ClientSession::Run: a fetch is a null "
          "Output (of an op that failed)");
    }
    fetches.push_back(output.name());
  }
  std::vector<std::string> targets;
  targets.reserve(run_outputs.size());
  for (const Operation& op : run_outputs) {
    if (op.node() == nullptr) {
      return errors::InvalidArgument(
          "ClientSession::Run: a target is a null "
          "Operation (of an op that failed)");
    }
    targets.push_back(op.name());
  }
  MF_ASSIGN_OR_RETURN(Session * session, impl_->CurrentSession());
  return session->Run(feeds, fetches, targets, outputs);
}

}  // namespace minflow
