#include "minflow/graph/placer.h"

#include <algorithm>
#include <deque>
#include <numeric>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "minflow/framework/device.h"
#include "minflow/framework/device_name_utils.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/subgraph.h"

namespace minflow {
namespace {

// Union-find over node ids for colocation groups.
class Groups {
 public:
  explicit Groups(int n) : parent_(n) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }
  int Find(int x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  void Union(int a, int b) { parent_[Find(a)] = Find(b); }

 private:
  std::vector<int> parent_;
};

bool IsEndpoint(const Node* n) {
  return n->type_string() == kArgOp || n->type_string() == kRetvalOp;
}

std::string DeviceList(const std::vector<Device*>& devices) {
  return absl::StrJoin(devices, ", ", [](std::string* out, const Device* d) {
    out->append(d->name());
  });
}

Status NodeError(const Node* n, const Status& s) {
  return errors::AttachNodeContext(s, n->name(), n->type_string());
}

// The devices placement chooses from, with their names parsed once.
struct ParsedDevices {
  explicit ParsedDevices(const std::vector<Device*>& list) : devices(list) {
    for (Device* d : devices) {
      DeviceNameUtils::ParsedName name;
      parsed_ok.push_back(
          DeviceNameUtils::ParseFullName(d->name(), &name).ok());
      names.push_back(name);
    }
  }
  const std::vector<Device*>& devices;
  std::vector<DeviceNameUtils::ParsedName> names;
  std::vector<bool> parsed_ok;
};

// Devices whose name matches the node's request and that have a kernel for
// it, in preference order. Honours soft placement.
Status CandidateDevices(const ParsedDevices& parsed,
                        const PlacerOptions& options, const Node* n,
                        std::vector<Device*>* candidates) {
  const std::vector<Device*>& devices = parsed.devices;
  candidates->clear();
  DeviceNameUtils::ParsedName spec;
  Status parsed_request =
      DeviceNameUtils::ParseFullName(n->requested_device(), &spec);
  if (!parsed_request.ok()) return NodeError(n, parsed_request);
  std::vector<Device*> with_kernel;
  std::vector<bool> has_kernel(devices.size(), false);
  // One kernel lookup per device type: devices of a type share kernels.
  std::vector<std::pair<DeviceType, bool>> by_type;
  for (size_t i = 0; i < devices.size(); ++i) {
    const DeviceType& type = devices[i]->device_type();
    auto it = std::find_if(by_type.begin(), by_type.end(),
                           [&type](const auto& t) { return t.first == type; });
    if (it == by_type.end()) {
      by_type.emplace_back(type, KernelDefAvailable(type, n->def()));
      it = by_type.end() - 1;
    }
    has_kernel[i] = it->second;
    if (has_kernel[i]) with_kernel.push_back(devices[i]);
  }
  if (with_kernel.empty()) {
    return NodeError(n, errors::InvalidArgument(
                            "No kernel for op ", n->type_string(),
                            " on any available device (", DeviceList(devices),
                            "). Registered kernels:\n",
                            KernelsRegisteredForOp(n->type_string())));
  }
  std::vector<Device*> named;
  for (size_t i = 0; i < devices.size(); ++i) {
    if (parsed.parsed_ok[i] &&
        DeviceNameUtils::IsSpecification(spec, parsed.names[i])) {
      named.push_back(devices[i]);
      if (has_kernel[i]) candidates->push_back(devices[i]);
    }
  }
  if (!candidates->empty()) return OkStatus();
  if (options.allow_soft_placement) {
    *candidates = with_kernel;
    return OkStatus();
  }
  if (named.empty()) {
    return NodeError(
        n, errors::InvalidArgument(
               "Cannot assign a device for operation ", n->name(),
               ": it was explicitly assigned to ", n->requested_device(),
               " but available devices are [ ", DeviceList(devices),
               " ]. Make sure the device specification refers to a valid "
               "device, or allow soft placement."));
  }
  return NodeError(
      n, errors::InvalidArgument(
             "Could not satisfy explicit device specification '",
             n->requested_device(), "' because no supported kernel for ",
             named.front()->device_type(),
             " devices is available. "
             "Registered kernels:\n",
             KernelsRegisteredForOp(n->type_string())));
}

// True when memory of this kind on `device` is host memory.
bool OnHost(const Device* device, MemoryType type) {
  return device->device_type() == DEVICE_CPU || type == HOST_MEMORY;
}

}  // namespace

struct PlacementCache::Impl {
  absl::flat_hash_map<const NodeDef*,
                      std::pair<std::shared_ptr<const NodeDef>,
                                std::unique_ptr<std::vector<Device*>>>>
      candidates;
};

PlacementCache::PlacementCache() : impl_(std::make_unique<Impl>()) {}
PlacementCache::~PlacementCache() = default;

const std::vector<Device*>* PlacementCache::Find(const NodeDef* def) const {
  auto it = impl_->candidates.find(def);
  return it == impl_->candidates.end() ? nullptr : it->second.second.get();
}

const std::vector<Device*>* PlacementCache::Insert(
    std::shared_ptr<const NodeDef> def, std::vector<Device*> candidates) {
  auto& entry = impl_->candidates[def.get()];
  entry.first = std::move(def);
  entry.second = std::make_unique<std::vector<Device*>>(std::move(candidates));
  return entry.second.get();
}

Status PlaceGraph(const std::vector<Device*>& devices,
                  const PlacerOptions& options, Graph* graph) {
  if (devices.empty())
    return errors::FailedPrecondition("No devices to place on");
  Device* host = nullptr;
  for (Device* d : devices) {
    if (d->device_type() == DEVICE_CPU) {
      host = d;
      break;
    }
  }
  if (host == nullptr) return errors::FailedPrecondition("No CPU device");

  // Colocation groups from `_class: loc:@other`.
  Groups groups(graph->num_node_ids());
  for (Node* n : graph->nodes()) {
    std::vector<std::string> classes;
    if (!TryGetNodeAttr(AttrSlice(n->def()), kColocationAttrName, &classes)) {
      continue;
    }
    for (const std::string& c : classes) {
      if (!absl::StartsWith(c, kColocationGroupPrefix)) continue;
      const std::string other = c.substr(strlen(kColocationGroupPrefix));
      Node* peer = graph->FindNodeByName(other);
      if (peer == nullptr) {
        return NodeError(
            n, errors::InvalidArgument("Colocation constraint names node '",
                                       other, "', which is not in the graph"));
      }
      groups.Union(n->id(), peer->id());
    }
  }

  const ParsedDevices parsed(devices);
  // Candidates per group: the intersection of its members' candidates.
  // Lists live in the cache or in `owned`; groups point at them.
  std::vector<const std::vector<Device*>*> group_devices(graph->num_node_ids(),
                                                         nullptr);
  std::vector<const Node*> group_first(graph->num_node_ids(), nullptr);
  std::deque<std::vector<Device*>> owned;
  for (Node* n : graph->nodes()) {
    if (IsEndpoint(n)) continue;
    const std::vector<Device*>* candidates =
        options.cache != nullptr ? options.cache->Find(&n->def()) : nullptr;
    if (candidates == nullptr) {
      std::vector<Device*> computed;
      MF_RETURN_IF_ERROR(CandidateDevices(parsed, options, n, &computed));
      candidates =
          options.cache != nullptr
              ? options.cache->Insert(n->shared_def(), std::move(computed))
              : &owned.emplace_back(std::move(computed));
    }
    const int g = groups.Find(n->id());
    if (group_devices[g] == nullptr) {
      group_devices[g] = candidates;
      group_first[g] = n;
      continue;
    }
    std::vector<Device*> both;
    for (Device* d : *group_devices[g]) {
      if (std::find(candidates->begin(), candidates->end(), d) !=
          candidates->end()) {
        both.push_back(d);
      }
    }
    if (both.empty()) {
      return NodeError(
          n, errors::InvalidArgument(
                 "Cannot colocate node ", n->name(), " with ",
                 group_first[g]->name(), ": no device satisfies both (",
                 n->name(), " can run on [", DeviceList(*candidates),
                 "], the group on [", DeviceList(*group_devices[g]), "])"));
    }
    group_devices[g] = &owned.emplace_back(std::move(both));
  }

  for (Node* n : graph->nodes()) {
    Device* chosen =
        IsEndpoint(n) ? host : group_devices[groups.Find(n->id())]->front();
    n->set_assigned_device_name(chosen->name());
    if (options.log_device_placement != nullptr) {
      *options.log_device_placement << n->name() << " (" << n->type_string()
                                    << "): " << chosen->name() << "\n";
    }
  }

  // Copies where a tensor changes between host and device memory; with
  // only host devices there are none to make.
  if (std::all_of(devices.begin(), devices.end(), [](const Device* d) {
        return d->device_type() == DEVICE_CPU;
      })) {
    return OkStatus();
  }
  absl::flat_hash_map<std::string, Device*> by_name;
  for (Device* d : devices) by_name[d->name()] = d;
  auto memory_types = [&](const Node* n, MemoryTypeVector* in,
                          MemoryTypeVector* out) -> Status {
    if (IsEndpoint(n)) {
      in->assign(n->num_inputs(), HOST_MEMORY);
      out->assign(n->num_outputs(), HOST_MEMORY);
      return OkStatus();
    }
    return MemoryTypesForNode(graph->op_registry(),
                              by_name[n->assigned_device_name()]->device_type(),
                              n->def(), in, out);
  };
  // One copy per (tensor, destination memory), shared by every consumer
  // there, as TensorFlow's Send/Recv pairs are.
  absl::flat_hash_map<std::tuple<int, int, const Device*>, Node*> copies;
  for (Node* dst : graph->nodes()) {
    MemoryTypeVector dst_in, dst_out;
    MF_RETURN_IF_ERROR(memory_types(dst, &dst_in, &dst_out));
    const std::vector<const Edge*> in_edges = dst->in_edges();
    for (const Edge* e : in_edges) {
      if (e->IsControlEdge()) continue;
      Node* src = e->src;
      MemoryTypeVector src_in, src_out;
      MF_RETURN_IF_ERROR(memory_types(src, &src_in, &src_out));
      Device* src_dev = by_name[src->assigned_device_name()];
      Device* dst_dev = by_name[dst->assigned_device_name()];
      const bool src_host = OnHost(src_dev, src_out[e->src_output]);
      const bool dst_host = OnHost(dst_dev, dst_in[e->dst_input]);
      if (src_host && dst_host) continue;
      if (!src_host && !dst_host && src_dev == dst_dev) continue;
      // Device -> host, then host -> device, as needed.
      Node* from = src;
      int from_port = e->src_output;
      const DataType type = src->output_type(e->src_output);
      const int dst_input = e->dst_input;
      graph->RemoveEdge(e);
      // `to` is the memory the copy's output lands in: null for the host.
      auto add_copy = [&](const char* op, Device* on,
                          const Device* to) -> Status {
        Node*& copy = copies[{from->id(), from_port, to}];
        if (copy == nullptr) {
          NodeDef def;
          def.set_name(absl::StrCat("_copy_", from->name(), "_", from_port, "_",
                                    op, "_", copies.size()));
          def.set_op(op);
          AddNodeAttr("T", type, &def);
          MF_ASSIGN_OR_RETURN(copy, graph->AddNode(std::move(def)));
          copy->set_assigned_device_name(on->name());
          if (!from->output_shapes().empty()) {
            copy->set_output_shapes({from->output_shape(from_port)});
          }
          graph->AddEdge(from, from_port, copy, 0);
        }
        from = copy;
        from_port = 0;
        return OkStatus();
      };
      if (!src_host) {
        MF_RETURN_IF_ERROR(add_copy(kCopyToHostOp, src_dev, nullptr));
      }
      if (!dst_host) {
        MF_RETURN_IF_ERROR(add_copy(kCopyFromHostOp, dst_dev, dst_dev));
      }
      graph->AddEdge(from, from_port, dst, dst_input);
    }
  }
  return OkStatus();
}

}  // namespace minflow
