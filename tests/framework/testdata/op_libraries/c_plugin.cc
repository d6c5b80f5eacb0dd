// Stands in for a C plugin: it only exports MF_PluginInit, which returns
// MF_TEST_PLUGIN_RESULT. The test's initializer calls it.
#ifndef MF_TEST_PLUGIN_RESULT
#define MF_TEST_PLUGIN_RESULT 0
#endif

extern "C" __attribute__((visibility("default"))) int MF_PluginInit() {
  return MF_TEST_PLUGIN_RESULT;
}
