/* Macros shared by minflow's C headers. Plain C. */
#ifndef MINFLOW_C_C_API_MACROS_H_
#define MINFLOW_C_C_API_MACROS_H_

/* Marks a function of minflow's C ABI (exported from libminflow). */
#ifndef MF_CAPI_EXPORT
#if defined(__GNUC__) || defined(__clang__)
#define MF_CAPI_EXPORT __attribute__((visibility("default")))
#else
#define MF_CAPI_EXPORT
#endif
#endif

#endif /* MINFLOW_C_C_API_MACROS_H_ */
