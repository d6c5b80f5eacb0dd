// The C API's callables: a session's (feeds, fetches, targets) signature
// prepared once and run by handle (Session::MakeCallable / RunCallable),
// as TensorFlow's Python uses TF_SessionMakeCallable.
#include <string>
#include <vector>

#include "minflow/c/c_api.h"
#include "minflow/config.pb.h"
#include "minflow/runtime/session.h"
#include "src/c/c_api_internal.h"

namespace minflow {
namespace c_api {
namespace {

Status MakeCallable(MF_Session* session, const MF_Output* inputs, int ninputs,
                    const MF_Output* outputs, int noutputs,
                    const MF_Operation* const* targets, int ntargets,
                    int64_t* handle) {
  const char* fn = "MF_SessionMakeCallable";
  if (session == nullptr) return NullArgument(fn, "session");
  const struct {
    const char* name;
    const void* array;
    int count;
  } arrays[] = {{"inputs", inputs, ninputs},
                {"outputs", outputs, noutputs},
                {"target_opers", targets, ntargets}};
  for (const auto& a : arrays) {
    if (a.count < 0 || (a.array == nullptr && a.count > 0)) {
      return errors::InvalidArgument(fn, ": ", a.name, " must hold ", a.count,
                                     " entries (a count >= 0)");
    }
  }
  CallableOptions options;
  {
    const MF_Graph& g = *session->graph;
    absl::ReaderMutexLock lock(&session->graph->mu);
    std::string name;
    for (int i = 0; i < ninputs; ++i) {
      MF_RETURN_IF_ERROR(OutputName(fn, g, inputs[i], "inputs", i, &name));
      options.add_feed(name);
    }
    for (int i = 0; i < noutputs; ++i) {
      MF_RETURN_IF_ERROR(OutputName(fn, g, outputs[i], "outputs", i, &name));
      options.add_fetch(name);
    }
    for (int i = 0; i < ntargets; ++i) {
      const Node* node = ToNode(targets[i]);
      if (!IsNodeOf(g.graph, node)) {
        return errors::InvalidArgument(
            fn, ": target_opers[", i, "] is ",
            node == nullptr ? "NULL" : "an operation of another graph");
      }
      options.add_target(node->name());
    }
  }
  return session->session->MakeCallable(options, handle);
}

// The feeds of a callable run, checked as both run functions check them.
Status CallableFeeds(const char* fn, MF_Session* session,
                     MF_Tensor* const* input_values, int ninputs,
                     const void* outputs, const char* outputs_name,
                     int noutputs, std::vector<Tensor>* feeds) {
  if (session == nullptr) return NullArgument(fn, "session");
  if (ninputs < 0 || (input_values == nullptr && ninputs > 0) || noutputs < 0 ||
      (outputs == nullptr && noutputs > 0)) {
    return errors::InvalidArgument(fn, ": input_values and ", outputs_name,
                                   " must hold ninputs and noutputs (>= 0) "
                                   "entries");
  }
  feeds->resize(ninputs);
  for (int i = 0; i < ninputs; ++i) {
    if (input_values[i] == nullptr) {
      return errors::InvalidArgument(fn, ": input_values[", i, "] is NULL");
    }
    (*feeds)[i] = input_values[i]->tensor;
  }
  return OkStatus();
}

Status RunCallableInto(MF_Session* session, int64_t handle,
                       MF_Tensor* const* input_values, int ninputs,
                       MF_Tensor* const* output_buffers, int noutputs) {
  const char* fn = "MF_SessionRunCallableInto";
  std::vector<Tensor> feeds;
  MF_RETURN_IF_ERROR(CallableFeeds(fn, session, input_values, ninputs,
                                   output_buffers, "output_buffers", noutputs,
                                   &feeds));
  for (int i = 0; i < noutputs; ++i) {
    if (output_buffers[i] == nullptr) {
      return errors::InvalidArgument(fn, ": output_buffers[", i, "] is NULL");
    }
  }
  // The buffers move into the run, so that the kernels may write into them
  // (a copy left here would share them), and come back after it.
  std::vector<Tensor> buffers(noutputs);
  std::vector<std::pair<DataType, TensorShape>> kept(noutputs);
  for (int i = 0; i < noutputs; ++i) {
    kept[i] = {output_buffers[i]->tensor.dtype(),
               output_buffers[i]->tensor.shape()};
    buffers[i] = std::move(output_buffers[i]->tensor);
    output_buffers[i]->tensor = Tensor();
  }
  const Status ran =
      session->session->RunCallableInto(handle, feeds, &buffers, nullptr);
  for (int i = 0; i < noutputs; ++i) {
    Tensor& back = output_buffers[i]->tensor;
    if (static_cast<size_t>(i) < buffers.size() &&
        buffers[i].data() != nullptr) {
      back = std::move(buffers[i]);
    } else {
      // An error lost this buffer: a new one of the same dtype and shape.
      back = Tensor(kept[i].first, kept[i].second);
    }
  }
  return ran;
}

Status RunCallable(MF_Session* session, int64_t handle,
                   MF_Tensor* const* input_values, int ninputs,
                   MF_Tensor** output_values, int noutputs) {
  const char* fn = "MF_SessionRunCallable";
  std::vector<Tensor> feeds;
  MF_RETURN_IF_ERROR(CallableFeeds(fn, session, input_values, ninputs,
                                   output_values, "output_values", noutputs,
                                   &feeds));
  std::vector<Tensor> values;
  MF_RETURN_IF_ERROR(
      session->session->RunCallable(handle, feeds, &values, nullptr));
  if (values.size() != static_cast<size_t>(noutputs)) {
    return errors::InvalidArgument(fn, ": the callable fetches ", values.size(),
                                   " tensors, but noutputs is ", noutputs);
  }
  for (int i = 0; i < noutputs; ++i) {
    output_values[i] = new MF_Tensor{std::move(values[i])};
  }
  return OkStatus();
}

}  // namespace
}  // namespace c_api
}  // namespace minflow

namespace c_api = minflow::c_api;

extern "C" {

int64_t MF_SessionMakeCallable(MF_Session* session, const MF_Output* inputs,
                               int ninputs, const MF_Output* outputs,
                               int noutputs,
                               const MF_Operation* const* target_opers,
                               int ntargets, MF_Status* status) {
  int64_t handle = -1;
  const minflow::Status s =
      c_api::MakeCallable(session, inputs, ninputs, outputs, noutputs,
                          target_opers, ntargets, &handle);
  c_api::Set(status, s);
  return s.ok() ? handle : -1;
}

void MF_SessionRunCallable(MF_Session* session, int64_t handle,
                           MF_Tensor* const* input_values, int ninputs,
                           MF_Tensor** output_values, int noutputs,
                           MF_Status* status) {
  for (int i = 0; output_values != nullptr && i < noutputs; ++i) {
    output_values[i] = nullptr;
  }
  c_api::Set(status, c_api::RunCallable(session, handle, input_values, ninputs,
                                        output_values, noutputs));
}

void MF_SessionRunCallableInto(MF_Session* session, int64_t handle,
                               MF_Tensor* const* input_values, int ninputs,
                               MF_Tensor* const* output_buffers, int noutputs,
                               MF_Status* status) {
  c_api::Set(status, c_api::RunCallableInto(session, handle, input_values,
                                            ninputs, output_buffers, noutputs));
}

void MF_SessionReleaseCallable(MF_Session* session, int64_t handle,
                               MF_Status* status) {
  if (session == nullptr) {
    c_api::Set(status,
               c_api::NullArgument("MF_SessionReleaseCallable", "session"));
    return;
  }
  c_api::Set(status, session->session->ReleaseCallable(handle));
}

}  // extern "C"
