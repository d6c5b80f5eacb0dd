// The entry from the op-library loader into the C plugin kernel ABI
// (include/minflow/c/kernel_plugin.h). Internal: LoadOpLibrary installs it
// with SetCPluginInitializer (see plugin_install.cc); tests call it directly.
#pragma once

#include <string>

#include "minflow/core/status.h"

namespace minflow {

// Runs a plugin's MF_PluginInit (`plugin_init_symbol`, the address the
// loader found for MF_PLUGIN_INIT_SYMBOL) and, when it succeeds, adds its
// operators to the OpRegistry and a CPU kernel for each to the kernel
// registry, attributed to `library_path`. All or nothing: on any error
// nothing is registered. Errors: InvalidArgument for a null symbol;
// FailedPrecondition when the plugin asks for a plugin API version this
// minflow does not serve (naming both); the plugin's own error, or Unknown
// when MF_PluginInit returns non-zero without one; AlreadyExists for an op
// name that is taken (naming both owners); InvalidArgument for bad specs.
// Not for concurrent use with itself (the loader serialises loads).
Status InitializeCPlugin(void* plugin_init_symbol,
                         const std::string& library_path);

}  // namespace minflow
