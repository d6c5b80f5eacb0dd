// Installs InitializeCPlugin into LoadOpLibrary when libminflow loads, so a
// library exporting MF_PluginInit (minflow/c/kernel_plugin.h) loads through
// LoadOpLibrary and `minflow run --load`.
//
// Not yet in src/c/CMakeLists.txt: it needs minflow/framework/load_library.h
// (SetCPluginInitializer), which comes with the op-library loader.
#include "minflow/framework/load_library.h"
#include "src/c/plugin_init.h"

namespace minflow {
namespace {

const bool c_plugin_initializer_installed =
    (SetCPluginInitializer(&InitializeCPlugin), true);

}  // namespace
}  // namespace minflow
