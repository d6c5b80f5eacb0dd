// minflow_cc_op_gen: writes the C++ op wrappers (one class per op) for the
// registered ops, or for the ops a custom-op library adds. The build runs
// it for the built-in ops (src/cc/CMakeLists.txt).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cc/framework/cc_op_gen.h"
#include "minflow/framework/load_library.h"
#include "minflow/framework/op.h"
#include "minflow/op_def.pb.h"

namespace {

constexpr char kUsage[] =
    "Usage: minflow_cc_op_gen --header OUT.h --header_include INCLUDE\n"
    "                         --source OUT.cc [--source OUT2.cc ...]\n"
    "                         [--op_library LIB.so]\n"
    "\n"
    "Writes one C++ class per op (minflow::ops::MatMul and so on: typed\n"
    "inputs, outputs as members, Attrs setters with the OpDef's defaults,\n"
    "a doc comment from the OpDef) into OUT.h, and their constructors into\n"
    "the OUT.cc files, split evenly so they compile in parallel. INCLUDE is\n"
    "how the sources include the header (\"minflow/cc/ops/standard_ops.h\").\n"
    "Ops whose names start with '_' and Const (minflow/cc/ops/const_op.h)\n"
    "get no class.\n"
    "\n"
    "  --op_library LIB.so  load a custom-op library and write classes for\n"
    "                       its ops only (not the built-in ones)\n"
    "\n"
    "A file whose content would not change is left alone, so its users are\n"
    "not rebuilt. Exit codes: 0 ok, 1 failure, 2 usage.\n";

// Writes `content` to `path` unless the file holds it already.
bool WriteIfChanged(const std::string& path, const std::string& content) {
  {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::stringstream old;
      old << in.rdbuf();
      if (old.str() == content) return true;
    }
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  out.close();
  if (!out) {
    std::cerr << "minflow_cc_op_gen: cannot write '" << path << "'\n";
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string header, header_include, op_library;
  std::vector<std::string> sources;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (i + 1 >= argc) {
      std::cerr << "minflow_cc_op_gen: " << flag << " needs a value\n"
                << kUsage;
      return 2;
    }
    const std::string value = argv[++i];
    if (flag == "--header") {
      header = value;
    } else if (flag == "--header_include") {
      header_include = value;
    } else if (flag == "--source") {
      sources.push_back(value);
    } else if (flag == "--op_library") {
      op_library = value;
    } else {
      std::cerr << "minflow_cc_op_gen: unknown flag '" << flag << "'\n"
                << kUsage;
      return 2;
    }
  }
  if (header.empty() || header_include.empty() || sources.empty()) {
    std::cerr << kUsage;
    return 2;
  }

  minflow::OpList ops;
  if (op_library.empty()) {
    minflow::OpRegistry::Global()->Export(/*include_internal=*/false, &ops);
  } else {
    minflow::Status loaded =
        minflow::LoadOpLibrary(op_library, &ops, /*kernels_added=*/nullptr);
    if (!loaded.ok()) {
      std::cerr << "minflow_cc_op_gen: " << loaded.message() << "\n";
      return 1;
    }
  }
  minflow::cc_op_gen::Options options;
  options.header_include = header_include;
  options.num_sources = static_cast<int>(sources.size());
  minflow::StatusOr<minflow::cc_op_gen::Files> files =
      minflow::cc_op_gen::Generate(ops, options);
  if (!files.ok()) {
    std::cerr << "minflow_cc_op_gen: " << files.status().message() << "\n";
    return 1;
  }
  bool ok = WriteIfChanged(header, files->header);
  for (size_t i = 0; i < sources.size(); ++i) {
    ok &= WriteIfChanged(sources[i], files->sources[i]);
  }
  return ok ? 0 : 1;
}
