// `minflow infer-op`: the output shapes one op gives for the input shapes
// (and constant input values) written in TensorFlow's test notation.
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "minflow/core/status.h"
#include "minflow/framework/op.h"
#include "minflow/framework/shape_notation.h"
#include "tools/command.h"

namespace minflow {
namespace tools {

void InferOpHelp(std::ostream& os) {
  os << "Usage: minflow infer-op OP [--attr NAME=VALUE]... [--inputs SPEC]\n"
        "                         [--tensor I=LITERAL]...\n"
        "\n"
        "Runs OP's shape function and prints its output shapes on one line,\n"
        "separated by ';'.\n"
        "\n"
        "  --inputs SPEC    input shapes separated by ';': '?' (unknown "
        "rank),\n"
        "                   '[]' (scalar), '[2,?,3]' ('?' an unknown dim).\n"
        "                   Omitted: no inputs.\n"
        "  --attr N=V       an attr in TensorFlow's text syntax: "
        "transpose_a=true,\n"
        "                   T=DT_FLOAT (or T=float), strides=[1,2,2,1],\n"
        "                   padding=SAME, shape=[2,?]. Attrs not given take "
        "their\n"
        "                   defaults; N of a list input follows from the "
        "inputs;\n"
        "                   others stay unset, and only a shape function that\n"
        "                   reads one fails, naming it.\n"
        "  --tensor I=LIT   the constant value of input I: [1,2,3] (int32),\n"
        "                   int64:[2,-1], [[1.5,2],[3,4]] (float), true.\n"
        "  --load LIB       load a custom-op library first (repeatable).\n"
        "\n"
        "Each output prints as 'inI' when it is input I's very shape object,\n"
        "'?' for an unknown rank, or '[...]' whose dims are 'dI_J' (input I's\n"
        "dim J object itself), a size, or '?'.\n"
        "\n"
        "Examples:\n"
        "  minflow infer-op MatMul --inputs '[2,3];[3,4]'\n"
        "      [d0_0,d1_1]\n"
        "  minflow infer-op Conv2D --attr strides=[1,2,2,1] --attr "
        "padding=SAME \\\n"
        "      --inputs '[1,224,224,3];[3,3,3,64]'\n"
        "      [d0_0,112,112,d1_3]\n"
        "  minflow infer-op Reshape --inputs '[6,4];[2]' --tensor 1=[-1,8]\n"
        "      [3,8]\n"
        "  minflow infer-op Identity --inputs '[2,?]'\n"
        "      in0\n"
        "  minflow infer-op 'Examples>ZeroOut' --load libzero_out.so \\\n"
        "      --attr T=float --inputs '[5]'\n"
        "      in0\n"
        "\n"
        "Exit codes: "
     << kExitOk << " success, " << kExitFailure
     << " the op or its inputs are invalid (the error is printed), "
     << kExitUsage << " usage error.\n";
}

namespace {

void PrintUsage(std::ostream& os) {
  os << "Usage: minflow infer-op OP [--attr NAME=VALUE]... [--inputs SPEC] "
        "[--tensor I=LITERAL]...\n";
}

// Reads "--flag value" or "--flag=value" at args[*i]; false if `arg` is not
// `flag`.
bool TakeFlag(const std::vector<std::string>& args, size_t* i,
              const std::string& flag, std::string* value, bool* missing) {
  const std::string& arg = args[*i];
  if (arg == flag) {
    if (*i + 1 >= args.size()) {
      *missing = true;
      return true;
    }
    *value = args[++*i];
    return true;
  }
  if (absl::StartsWith(arg, flag + "=")) {
    *value = arg.substr(flag.size() + 1);
    return true;
  }
  return false;
}

}  // namespace

int InferOpMain(const CommandContext& ctx) {
  shape_inference::InferOpRequest request;
  bool have_op = false;
  for (size_t i = 0; i < ctx.args.size(); ++i) {
    std::string value;
    bool missing = false;
    if (TakeFlag(ctx.args, &i, "--attr", &value, &missing)) {
      request.attrs.push_back(value);
    } else if (TakeFlag(ctx.args, &i, "--inputs", &value, &missing)) {
      request.inputs = value;
    } else if (TakeFlag(ctx.args, &i, "--tensor", &value, &missing)) {
      request.tensors.push_back(value);
    } else if (absl::StartsWith(ctx.args[i], "-")) {
      *ctx.err << "minflow infer-op: unknown flag '" << ctx.args[i] << "'\n";
      PrintUsage(*ctx.err);
      return kExitUsage;
    } else if (!have_op) {
      request.op = ctx.args[i];
      have_op = true;
    } else {
      *ctx.err << "minflow infer-op: unexpected argument '" << ctx.args[i]
               << "'\n";
      PrintUsage(*ctx.err);
      return kExitUsage;
    }
    if (missing) {
      *ctx.err << "minflow infer-op: " << ctx.args[i] << " needs a value\n";
      PrintUsage(*ctx.err);
      return kExitUsage;
    }
  }
  if (!have_op) {
    PrintUsage(*ctx.err);
    return kExitUsage;
  }
  std::string outputs;
  const Status s = shape_inference::RunInferOpRequest(*OpRegistry::Global(),
                                                      request, &outputs);
  if (!s.ok()) {
    *ctx.err << "minflow infer-op: " << s.message() << "\n";
    return kExitFailure;
  }
  *ctx.out << outputs << "\n";
  return kExitOk;
}

}  // namespace tools
}  // namespace minflow
