// ClientSession: runs the Outputs of a Scope's graph (TensorFlow's
// cc/client/client_session.h).
//
//   ClientSession session(root);
//   std::vector<Tensor> out;
//   MF_RETURN_IF_ERROR(session.Run({{x, {1.f, 2.f}}}, {y}, &out));
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "minflow/cc/framework/ops.h"
#include "minflow/cc/framework/scope.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"
#include "minflow/runtime/session.h"

namespace minflow {

// Holds a Session over the scope's graph. Ops added to the graph after the
// session was made are picked up by the next Run (the session is made
// again from the grown graph). Run may be called from several threads as
// long as nobody adds ops meanwhile.
class ClientSession {
 public:
  using FeedType = std::unordered_map<Output, Input::Initializer, OutputHash>;

  explicit ClientSession(const Scope& scope,
                         const SessionOptions& options = SessionOptions());
  ~ClientSession();
  ClientSession(const ClientSession&) = delete;
  ClientSession& operator=(const ClientSession&) = delete;

  // Evaluates `fetch_outputs` into `*outputs` (same order). The scope's
  // status, if an error, is returned first: a graph with a failed op is
  // never run.
  Status Run(const std::vector<Output>& fetch_outputs,
             std::vector<Tensor>* outputs) const;
  // As above, feeding `inputs` (usually Placeholders) first.
  Status Run(const FeedType& inputs, const std::vector<Output>& fetch_outputs,
             std::vector<Tensor>* outputs) const;
  // As above, also running `run_outputs` for their effects.
  Status Run(const FeedType& inputs, const std::vector<Output>& fetch_outputs,
             const std::vector<Operation>& run_outputs,
             std::vector<Tensor>* outputs) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace minflow
