#include "tools/signature_flags.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "minflow/config.pb.h"
#include "minflow/runtime/device_factory.h"
#include "minflow/runtime/session.h"
#include "tools/graph_run_flags.h"

namespace minflow {
namespace tools {

StatusOr<bool> ParseSignatureFlag(const std::vector<std::string>& args,
                                  size_t* i, SignatureFlags* flags) {
  const std::string& arg = args[*i];
  if (arg == "--allow-soft-placement") {
    flags->allow_soft_placement = true;
    return true;
  }
  struct Flag {
    const char* name;
    std::vector<std::string>* values;
  };
  const Flag known[] = {{"--feed", &flags->feeds},
                        {"--fetch", &flags->fetches},
                        {"--target", &flags->targets},
                        {"--disable", &flags->disabled_passes}};
  for (const Flag& flag : known) {
    std::string value;
    if (absl::StartsWith(arg, absl::StrCat(flag.name, "="))) {
      value = arg.substr(strlen(flag.name) + 1);
    } else if (arg == flag.name) {
      if (*i + 1 >= args.size()) {
        return errors::InvalidArgument(flag.name, " needs a value");
      }
      value = args[++*i];
    } else {
      continue;
    }
    if (value.empty()) {
      return errors::InvalidArgument(flag.name, " needs a value");
    }
    // A feed may be written as for `minflow run`; only its name matters.
    if (flag.values == &flags->feeds) value = value.substr(0, value.find('='));
    flag.values->push_back(std::move(value));
    return true;
  }
  return false;
}

void PrintSignatureFlagsHelp(std::ostream& os) {
  os << R"(  --feed NAME             A fed tensor ("x" or "x:1"; "x=VALUE" as for
                          minflow run is accepted, the value ignored).
                          Repeatable.
  --fetch NAME            A fetched tensor. Repeatable. Without --fetch and
                          --target: the outputs nothing consumes.
  --target NAME           A node run for its effects. Repeatable.
  --disable PASS          Turn an optimisation pass off (see
                          minflow optimize --passes). Repeatable.
  --allow-soft-placement  Place a node elsewhere when its requested device
                          does not exist or has no kernel.
)";
}

Status PrepareSignature(GraphDef graph_def, const SignatureFlags& flags,
                        std::vector<std::unique_ptr<Device>>* devices,
                        std::unique_ptr<GraphPipeline>* pipeline,
                        PreparedGraph* prepared) {
  std::vector<std::string> fetches = flags.fetches;
  if (fetches.empty() && flags.targets.empty()) {
    fetches = DefaultFetches(graph_def);
  }
  MF_RETURN_IF_ERROR(GraphPipeline::Prepare(std::move(graph_def),
                                            GraphPipelineOptions(), pipeline));
  SessionOptions session;
  session.config.set_intra_op_parallelism_threads(1);
  MF_RETURN_IF_ERROR(CreateDevices(session, devices));
  SignatureOptions options;
  for (const auto& d : *devices) options.devices.push_back(d.get());
  options.allow_soft_placement = flags.allow_soft_placement;
  options.passes.disabled = flags.disabled_passes;
  return (*pipeline)->PrepareForSignature(flags.feeds, fetches, flags.targets,
                                          options, prepared);
}

void PrintPassRecords(const std::vector<GraphPassRecord>& records,
                      std::ostream& os) {
  for (const GraphPassRecord& p : records) {
    if (p.ran()) {
      os << absl::StrFormat("pass %s (%s): %d -> %d nodes, %.3f ms\n", p.name(),
                            p.phase(), p.nodes_before(), p.nodes_after(),
                            p.duration_us() / 1000.0);
    } else {
      os << absl::StrFormat("pass %s (%s): off\n", p.name(), p.phase());
    }
  }
}

}  // namespace tools
}  // namespace minflow
