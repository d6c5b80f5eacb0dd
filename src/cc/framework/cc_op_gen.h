// The C++ op-wrapper generator (TensorFlow's cc_op_gen): one class per
// OpDef, in the shape of minflow::ops::MatMul (see README, "C++ graph
// API"). Used by tools/cc_op_gen at build time; not installed.
#pragma once

#include <string>
#include <vector>

#include "minflow/core/status.h"

namespace minflow {

class OpDef;
class OpList;

namespace cc_op_gen {

struct Options {
  // How the generated sources include the generated header
  // ("minflow/cc/ops/standard_ops.h").
  std::string header_include;
  // Into how many source files the definitions are split (so they compile
  // in parallel); at least 1.
  int num_sources = 1;
};

struct Files {
  std::string header;
  std::vector<std::string> sources;  // Options::num_sources of them
};

// Whether `op_def` gets a class: not the internal ops ('_' prefix) and not
// Const, whose wrapper is written by hand (minflow/cc/ops/const_op.h).
bool ShouldGenerate(const OpDef& op_def);

// The header and sources for every op of `ops` that ShouldGenerate, in
// name order. InvalidArgument naming the op and attr for an attr the
// wrappers cannot express (an optional attr of type tensor or func).
StatusOr<Files> Generate(const OpList& ops, const Options& options);

}  // namespace cc_op_gen
}  // namespace minflow
