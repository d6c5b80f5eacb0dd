#include "minflow/framework/load_library.h"

#include <elf.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/op.h"
#include "minflow/framework/op_library.h"
#include "minflow/graph.pb.h"
#include "minflow/kernel_def.pb.h"
#include "minflow/op_def.pb.h"
#include "minflow/runtime/session.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;
using ::minflow::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string Canonical(const std::string& path) {
  char resolved[PATH_MAX];
  return realpath(path.c_str(), resolved) != nullptr ? resolved : path;
}

std::vector<std::string> Names(const OpList& ops) {
  std::vector<std::string> names;
  for (const OpDef& op : ops.op()) names.push_back(op.name());
  return names;
}

// Runs `graph_text` and returns the float values of `fetch`.
std::vector<float> RunFloats(const std::string& graph_text,
                             const std::string& fetch) {
  auto session = Session::Create(ParseTextProtoOrDie<GraphDef>(graph_text),
                                 SessionOptions());
  MF_EXPECT_OK(session.status());
  if (!session.ok()) return {};
  std::vector<Tensor> outputs;
  MF_EXPECT_OK((*session)->Run({}, {fetch}, {}, &outputs));
  if (outputs.size() != 1) return {};
  const auto flat = outputs[0].flat<float>();
  return std::vector<float>(flat.data(), flat.data() + flat.size());
}

constexpr char kConst[] = R"pb(
  node {
    name: "c"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape { dim { size: 3 } }
          float_val: [ 5, 4, 3 ]
        }
      }
    }
  }
)pb";

// Runs the built-in ZeroOut on kConst with the kernel labelled `label` (""
// for minflow's own).
std::vector<float> RunZeroOut(const std::string& label) {
  return RunFloats(
      absl::StrCat(kConst,
                   "node { name: 'z' op: 'ZeroOut' input: 'c' attr { key: 'T' "
                   "value { type: DT_FLOAT } }",
                   label.empty() ? ""
                                 : absl::StrCat(" attr { key: '_kernel' value "
                                                "{ s: '",
                                                label, "' } }"),
                   " }"),
      "z");
}

// After a failed load: built-in ops and kernels still run, the op registry
// takes and processes registrations again, and a good library loads.
void ExpectProcessStillWorks() {
  EXPECT_THAT(RunZeroOut(""), ElementsAre(5, 0, 0));
  static int registered = 0;
  const std::string name = absl::StrCat("LoadTestAfterFailure", ++registered);
  OpRegistry::Global()->Register([name](OpRegistrationData* data) {
    return OpDefBuilder(name).Finalize(data);
  });
  EXPECT_NE(OpRegistry::Global()->LookUp(name), nullptr);
  OpList ops;
  MF_EXPECT_OK(LoadOpLibrary(LIB_GOOD, &ops));
  EXPECT_THAT(Names(ops), ElementsAre("LoadTest>Double"));
}

TEST(LoadOpLibraryTest, AddsTheLibrarysOpsAndKernels) {
  OpList ops;
  KernelList kernels;
  MF_ASSERT_OK(LoadOpLibrary(LIB_GOOD, &ops, &kernels));
  EXPECT_THAT(Names(ops), ElementsAre("LoadTest>Double"));
  ASSERT_EQ(kernels.kernel_size(), 2);
  EXPECT_EQ(kernels.kernel(0).op(), "LoadTest>Double");
  EXPECT_EQ(kernels.kernel(0).device_type(), "CPU");
  EXPECT_EQ(kernels.kernel(1).op(), "ZeroOut");
  EXPECT_EQ(kernels.kernel(1).label(), "doubling");
  const OpRegistrationData* data =
      OpRegistry::Global()->LookUp("LoadTest>Double");
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->owner, Canonical(LIB_GOOD));
  EXPECT_THAT(
      RunFloats(absl::StrCat(kConst, R"pb(
                  node { name: "d" op: "LoadTest>Double" input: "c" })pb"),
                "d"),
      ElementsAre(10, 8, 6));
  // A kernel for a built-in op, picked by its label.
  EXPECT_THAT(RunZeroOut("doubling"), ElementsAre(10, 8, 6));
}

TEST(LoadOpLibraryTest, LoadingTheSameFileAgainIsANoOp) {
  OpList first;
  KernelList first_kernels;
  MF_ASSERT_OK(LoadOpLibrary(LIB_GOOD, &first, &first_kernels));
  OpList second;
  KernelList second_kernels;
  MF_ASSERT_OK(LoadOpLibrary(LIB_GOOD, &second, &second_kernels));
  EXPECT_EQ(second.SerializeAsString(), first.SerializeAsString());
  EXPECT_EQ(second_kernels.SerializeAsString(),
            first_kernels.SerializeAsString());
  // The same file under another name is the same library.
  const std::string link = absl::StrCat(::testing::TempDir(), "/good_link.so");
  unlink(link.c_str());
  ASSERT_EQ(symlink(Canonical(LIB_GOOD).c_str(), link.c_str()), 0);
  OpList via_link;
  MF_ASSERT_OK(LoadOpLibrary(link, &via_link));
  EXPECT_THAT(Names(via_link), ElementsAre("LoadTest>Double"));
  EXPECT_THAT(OpRegistry::Global()->registration_errors(),
              ::testing::Not(::testing::Contains(::testing::Field(
                  &OpRegistrationError::op_name, "LoadTest>Double"))));
}

TEST(LoadOpLibraryTest, MissingFileIsNotFound) {
  EXPECT_THAT(LoadOpLibrary("/nonexistent/libnope.so", nullptr),
              StatusIs(absl::StatusCode::kNotFound,
                       "cannot load op library '/nonexistent/libnope.so': "
                       "no such file"));
  EXPECT_THAT(LoadOpLibrary(::testing::TempDir(), nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("not a regular file")));
  ExpectProcessStillWorks();
}

TEST(LoadOpLibraryTest, ATextFileIsNotALibrary) {
  const std::string path = absl::StrCat(::testing::TempDir(), "/notes.so");
  std::ofstream(path) << "These are notes, not a shared library. They are "
                         "long enough to hold a whole ELF header.\n";
  OpList ops;
  EXPECT_THAT(LoadOpLibrary(path, &ops),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(StartsWith(absl::StrCat("cannot load op library '",
                                                     path, "': ")),
                             HasSubstr("invalid ELF header"))));
  ExpectProcessStillWorks();
}

TEST(LoadOpLibraryTest, AnOpNameTakenByMinflowIsRefusedNamingBothOwners) {
  const std::string library = Canonical(LIB_ZERO_OUT_CLASH);
  const OpRegistrationData* builtin = OpRegistry::Global()->LookUp("ZeroOut");
  ASSERT_NE(builtin, nullptr);
  const Status s = LoadOpLibrary(LIB_ZERO_OUT_CLASH, nullptr);
  EXPECT_THAT(
      s, StatusIs(absl::StatusCode::kAlreadyExists,
                  StartsWith(absl::StrCat(
                      "cannot load op library '", LIB_ZERO_OUT_CLASH,
                      "': op 'ZeroOut': Op with name ZeroOut is already "
                      "registered by 'minflow'; a second registration came "
                      "from '",
                      library, "'"))));
  // Its kernel for ZeroOut was checked too, and refused.
  EXPECT_THAT(s.message(), HasSubstr("ClashingZeroOut from '" + library));
  // All or none: the library's other op is not registered either, and the
  // built-in ZeroOut is untouched.
  EXPECT_EQ(OpRegistry::Global()->LookUp("LoadTest>Innocent"), nullptr);
  EXPECT_EQ(OpRegistry::Global()->LookUp("ZeroOut"), builtin);
  EXPECT_EQ(builtin->owner, "minflow");
  // A second try returns the same error without loading anything.
  EXPECT_EQ(LoadOpLibrary(LIB_ZERO_OUT_CLASH, nullptr), s);
  ExpectProcessStillWorks();
}

TEST(LoadOpLibraryTest, AMalformedRegistrationIsRefused) {
  EXPECT_THAT(
      LoadOpLibrary(LIB_MALFORMED, nullptr),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("op 'LoadTest>Malformed': Trouble parsing type "
                         "string at 'typo' from Attr(\"T: typo\")")));
  EXPECT_EQ(OpRegistry::Global()->LookUp("LoadTest>Fine"), nullptr);
  EXPECT_EQ(OpRegistry::Global()->LookUp("LoadTest>Malformed"), nullptr);
  ExpectProcessStillWorks();
}

TEST(LoadOpLibraryTest, AKernelThatTiesWithABuiltInIsRefused) {
  EXPECT_THAT(
      LoadOpLibrary(LIB_KERNEL_CLASH, nullptr),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr(absl::StrCat("SecondZeroOut from '",
                                            Canonical(LIB_KERNEL_CLASH), "')")),
                     HasSubstr("matches the same nodes at the same priority "
                               "as OpKernel"),
                     HasSubstr("from 'minflow'"))));
  EXPECT_EQ(OpRegistry::Global()->LookUp("LoadTest>Bystander"), nullptr);
  // ExpectProcessStillWorks runs ZeroOut<float>: no tie is left behind.
  ExpectProcessStillWorks();
}

TEST(LoadOpLibraryTest, ALibraryForAnotherMinflowIsRefusedBeforeItRuns) {
  const Status s = LoadOpLibrary(LIB_BAD_ABI, nullptr);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kFailedPrecondition,
                          HasSubstr(absl::StrCat(
                              "the library was built against minflow ABI "
                              "'0.0.0-test', but this process runs minflow "
                              "ABI '",
                              MINFLOW_OP_LIBRARY_ABI, "'"))));
  EXPECT_EQ(std::getenv("MF_LOAD_TEST_BAD_ABI_RAN"), nullptr);
  EXPECT_EQ(OpRegistry::Global()->LookUp("LoadTest>OldAbi"), nullptr);
  EXPECT_EQ(LoadOpLibrary(LIB_BAD_ABI, nullptr), s);
  ExpectProcessStillWorks();
}

// Without section headers (dlopen() needs none) the mark cannot be read
// from the file: it is read after dlopen() instead, and the library's
// registrations, made by then, are dropped.
TEST(LoadOpLibraryTest, AMarkOnlyReadableAfterLoadingIsCheckedToo) {
  std::ifstream in(LIB_BAD_ABI_NO_SECTIONS, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), sizeof(Elf64_Ehdr));
  Elf64_Ehdr header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  header.e_shoff = 0;
  header.e_shnum = 0;
  header.e_shstrndx = 0;
  std::memcpy(bytes.data(), &header, sizeof(header));
  const std::string path =
      absl::StrCat(::testing::TempDir(), "/libno_sections.so");
  std::ofstream(path, std::ios::binary) << bytes;

  EXPECT_THAT(LoadOpLibrary(path, nullptr),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("built against minflow ABI '0.0.0-test'")));
  EXPECT_NE(std::getenv("MF_LOAD_TEST_NO_SECTIONS_RAN"), nullptr);
  EXPECT_EQ(OpRegistry::Global()->LookUp("LoadTest>OldAbiNoSections"), nullptr);
  ExpectProcessStillWorks();
}

TEST(LoadOpLibraryTest, LoadingFromALoadingLibraryIsRefused) {
  OpList ops;
  MF_ASSERT_OK(LoadOpLibrary(LIB_REENTRANT, &ops));
  EXPECT_THAT(Names(ops), ElementsAre("LoadTest>Reentrant"));
  const char* inner = std::getenv("MF_LOAD_TEST_REENTRANT");
  ASSERT_NE(inner, nullptr);
  EXPECT_THAT(inner, HasSubstr("cannot load op library "
                               "'/nonexistent/libother.so' while another "
                               "library loads"));
}

// A stand-in for the C plugin ABI's initializer: calls the library's
// MF_PluginInit and registers an op in the library's name.
std::vector<std::string>* InitCalls() {
  static auto* calls = new std::vector<std::string>;
  return calls;
}

Status TestPluginInit(void* symbol, const std::string& library_path) {
  InitCalls()->push_back(library_path);
  const int result = reinterpret_cast<int (*)()>(symbol)();
  const std::string op =
      result == 0 ? "LoadTest>FromCPluginOk" : "LoadTest>FromCPluginFails";
  OpRegistry::Global()->Register([op](OpRegistrationData* data) {
    return OpDefBuilder(op).Output("y: float").Finalize(data);
  });
  if (result != 0) {
    return errors::Internal("the plugin's init returned ", result);
  }
  return OkStatus();
}

TEST(LoadOpLibraryTest, CPluginsNeedAnInitializer) {
  SetCPluginInitializer(nullptr);
  EXPECT_THAT(LoadOpLibrary(LIB_C_PLUGIN_UNSUPPORTED, nullptr),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("is a C plugin (it exports MF_PluginInit)")));
  ExpectProcessStillWorks();
}

TEST(LoadOpLibraryTest, CPluginRegistrationsBelongToTheLibrary) {
  SetCPluginInitializer(&TestPluginInit);
  InitCalls()->clear();
  OpList ops;
  MF_ASSERT_OK(LoadOpLibrary(LIB_C_PLUGIN_OK, &ops));
  EXPECT_THAT(*InitCalls(), ElementsAre(Canonical(LIB_C_PLUGIN_OK)));
  EXPECT_THAT(Names(ops), ElementsAre("LoadTest>FromCPluginOk"));
  const OpRegistrationData* data =
      OpRegistry::Global()->LookUp("LoadTest>FromCPluginOk");
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->owner, Canonical(LIB_C_PLUGIN_OK));

  // A failing initializer fails the load and leaves nothing registered.
  EXPECT_THAT(LoadOpLibrary(LIB_C_PLUGIN_FAILS, nullptr),
              StatusIs(absl::StatusCode::kInternal,
                       HasSubstr("MF_PluginInit failed: the plugin's init "
                                 "returned 7")));
  EXPECT_EQ(OpRegistry::Global()->LookUp("LoadTest>FromCPluginFails"), nullptr);
  SetCPluginInitializer(nullptr);
  ExpectProcessStillWorks();
}

// A library built without minflow_add_op_library carries no ABI mark: it
// loads unchecked.
TEST(LoadOpLibraryTest, ALibraryWithoutTheAbiMarkLoadsUnchecked) {
  OpList ops;
  MF_ASSERT_OK(LoadOpLibrary(LIB_UNMARKED, &ops));
  EXPECT_THAT(Names(ops), ElementsAre("LoadTest>Unmarked"));
}

}  // namespace
}  // namespace minflow
