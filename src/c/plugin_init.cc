// InitializeCPlugin: runs a plugin's MF_PluginInit and commits what it
// registered (see Note [Plugin kernel ABI] in kernel_plugin.h).
#include "src/c/plugin_init.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "minflow/framework/op.h"
#include "src/c/plugin_internal.h"

MF_PluginRegistrar::MF_PluginRegistrar(std::string path)
    : ErrorSink(&description),
      library_path(std::move(path)),
      description(absl::StrCat("plugin library '", library_path, "'")) {}

namespace minflow {
namespace {

// The registry's verdict on `name`, registered just now by `owner`: OK
// when the op is there or still queued (the loader defers registrations
// and reports them itself), else the error the registry kept.
Status RegistryVerdict(const std::string& name, const std::string& owner) {
  if (OpRegistry::Global()->LookUp(name) != nullptr) return OkStatus();
  std::vector<OpRegistrationError> failures =
      OpRegistry::Global()->registration_errors();
  for (auto it = failures.rbegin(); it != failures.rend(); ++it) {
    if (it->op_name == name && it->owner == owner) return it->status;
  }
  return OkStatus();
}

}  // namespace

Status InitializeCPlugin(void* plugin_init_symbol,
                         const std::string& library_path) {
  if (plugin_init_symbol == nullptr) {
    return errors::InvalidArgument("Plugin library '", library_path,
                                   "' has no ", MF_PLUGIN_INIT_SYMBOL,
                                   " function");
  }
  auto entry = reinterpret_cast<MF_PluginInitEntry>(plugin_init_symbol);
  OpRegistry::ScopedOwner owner(library_path);
  MF_PluginRegistrar registrar(library_path);
  int32_t rc;
  {
    c_plugin::CallScope scope(c_plugin::HandleKind::kRegistrar, &registrar,
                              &registrar);
    rc = entry(c_plugin::PluginApiBase(), &registrar);
  }
  MF_RETURN_IF_ERROR(registrar.status());
  if (rc != 0) {
    return errors::Unknown(MF_PLUGIN_INIT_SYMBOL, " of ", registrar.description,
                           " returned ", rc, " without reporting an error");
  }
  for (MF_PluginRegistrar::Accepted& accepted : registrar.accepted) {
    auto data =
        std::make_shared<const OpRegistrationData>(std::move(accepted.data));
    OpRegistry::Global()->Register([data](OpRegistrationData* out) {
      *out = *data;
      return OkStatus();
    });
    MF_RETURN_IF_ERROR(RegistryVerdict(accepted.spec->name, library_path));
    c_plugin::RegisterPluginKernel(accepted.spec);
  }
  return OkStatus();
}

}  // namespace minflow
