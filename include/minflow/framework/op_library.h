// The mark every custom-op library built by minflow_add_op_library carries:
// the minflow ABI it was compiled against. LoadOpLibrary reads it from the
// file before running any of the library's code and refuses a mismatch.
#pragma once

#include <cstddef>  // defines the standard library's ABI macros

#include "minflow/version.h"

// The standard library a library was built with: a library built against
// another std::string layout cannot share one with minflow.
#if defined(_LIBCPP_VERSION)
#define MINFLOW_STDLIB_ABI "libc++"
#elif defined(__GLIBCXX__) && _GLIBCXX_USE_CXX11_ABI
#define MINFLOW_STDLIB_ABI "libstdc++ cxx11"
#elif defined(__GLIBCXX__)
#define MINFLOW_STDLIB_ABI "libstdc++ pre-cxx11"
#else
#define MINFLOW_STDLIB_ABI "unknown stdlib"
#endif

// What MF_OpLibraryAbiVersion holds, e.g. "0.1.0 libstdc++ cxx11", and what
// LoadOpLibrary expects.
#define MINFLOW_OP_LIBRARY_ABI MINFLOW_ABI_VERSION " " MINFLOW_STDLIB_ABI

// The symbol's name, for loaders.
#define MINFLOW_OP_LIBRARY_ABI_SYMBOL "MF_OpLibraryAbiVersion"

extern "C" {
// Defined (NUL-terminated, exported) in a source minflow_add_op_library
// generates for each library: MINFLOW_OP_LIBRARY_ABI, or, to build a
// deliberately mismatched library for a test, the string given by the
// compile definition MINFLOW_OP_LIBRARY_ABI_OVERRIDE. minflow itself never
// defines it. Optional: a library without it is loaded unchecked.
extern const char MF_OpLibraryAbiVersion[];
}
