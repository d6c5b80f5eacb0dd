// Loading custom-op libraries (TensorFlow's tf.load_op_library): shared
// libraries whose REGISTER_OP and REGISTER_KERNEL_BUILDER calls add ops and
// kernels to this process. Build one with minflow_add_op_library (CMake).
#pragma once

#include <string>

#include "minflow/core/status.h"

namespace minflow {

class KernelList;
class OpList;

// Loads the custom-op library at `path` (RTLD_NOW | RTLD_LOCAL) and adds its
// ops and kernels, all or none. On success fills `ops_added` (the library's
// OpDefs in registration order) and `kernels_added` (its KernelDefs); either
// may be null. Loading a path that loaded before (the same file, however
// named) does nothing and returns the same lists, or the same error.
//
// Errors, each prefixed "cannot load op library '<path>': " (the first
// problem's code; every problem is listed):
//   NotFound            no file at `path`.
//   InvalidArgument     not a loadable shared library (dlerror()'s text);
//                       an op whose spec is malformed; a kernel that does
//                       not fit its op or ties with a registered kernel.
//   AlreadyExists       an op name already registered, naming the op and
//                       both owners ('minflow' or a library path).
//   FailedPrecondition  built against another minflow ABI (see
//                       op_library.h; both versions are named): found
//                       before any of the library's code runs.
//   Unimplemented       a C plugin (exports MF_PluginInit) while no C plugin
//                       initializer is installed.
//   FailedPrecondition  also: called while a library loads, from its static
//                       initialisers or its MF_PluginInit.
// After a failure nothing the library registered is usable and the process
// carries on. A library that failed once opened is not unloaded (its code
// may still be referenced), and loading it again returns the same error;
// earlier failures (no file, not a library, another ABI) are checked afresh.
//
// Thread-safe; loads are serialised. Registrations made by other threads
// while a library loads are attributed to it.
Status LoadOpLibrary(const std::string& path, OpList* ops_added,
                     KernelList* kernels_added = nullptr);

// Runs a C plugin's entry point: `plugin_init_symbol` is the address of the
// library's MF_PluginInit, `library_path` the library's canonical path.
// Registrations it makes count as the library's (same ownership, same all
// or none). Its error fails the load.
using CPluginInitializer = Status (*)(void* plugin_init_symbol,
                                      const std::string& library_path);

// Installs the function LoadOpLibrary calls for libraries that export
// MF_PluginInit (the C plugin ABI sets this); null removes it. Thread-safe;
// waits for a load in progress.
void SetCPluginInitializer(CPluginInitializer init);

}  // namespace minflow
