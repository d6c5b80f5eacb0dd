/* Plugins compiled as C into plugin_kernel_api_test: each function has
 * MF_PluginInit's signature (see minflow/c/kernel_plugin.h) under its own
 * name, so one binary can hold them all. */
#pragma once

#include <stdint.h>

#include "minflow/c/kernel_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the well-behaved ops Test>AttrEcho, Test>Accumulate and
 * Test>ShapeFromValue, and Test>Misbehave, which misuses the API as its
 * `mode` attr says. */
int32_t TestPluginInit(const MF_PluginApiBase* base, MF_PluginRegistrar* r);

/* Each fails to load in one way. */
int32_t TestPluginNewerApi(const MF_PluginApiBase* base, MF_PluginRegistrar* r);
int32_t TestPluginBadSpec(const MF_PluginApiBase* base, MF_PluginRegistrar* r);
int32_t TestPluginTakenName(const MF_PluginApiBase* base,
                            MF_PluginRegistrar* r);
int32_t TestPluginNoInvoke(const MF_PluginApiBase* base, MF_PluginRegistrar* r);
int32_t TestPluginFailsSilently(const MF_PluginApiBase* base,
                                MF_PluginRegistrar* r);
int32_t TestPluginReportsError(const MF_PluginApiBase* base,
                               MF_PluginRegistrar* r);
int32_t TestPluginPartlyBad(const MF_PluginApiBase* base,
                            MF_PluginRegistrar* r);
int32_t TestPluginNullArguments(const MF_PluginApiBase* base,
                                MF_PluginRegistrar* r);
int32_t TestPluginRegistersTwice(const MF_PluginApiBase* base,
                                 MF_PluginRegistrar* r);
int32_t TestPluginUsesRegisteredOperator(const MF_PluginApiBase* base,
                                         MF_PluginRegistrar* r);
int32_t TestPluginNoPrepareForShapes(const MF_PluginApiBase* base,
                                     MF_PluginRegistrar* r);
/* Registers Test>Identity (y = x); for the loader's deferred bracket. */
int32_t TestPluginIdentity(const MF_PluginApiBase* base, MF_PluginRegistrar* r);
/* Asks for the API but registers nothing: loads fine. */
int32_t TestPluginEmpty(const MF_PluginApiBase* base, MF_PluginRegistrar* r);

/* Kernel states made by Init and not yet freed (Test>AttrEcho and
 * Test>Misbehave). */
int32_t TestPluginLiveStates(void);

#ifdef __cplusplus
} /* extern "C" */
#endif
