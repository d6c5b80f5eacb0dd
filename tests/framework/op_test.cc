#include "minflow/framework/op.h"

#include <atomic>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "minflow/framework/op_def_util.h"
#include "minflow/op_def.pb.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

// REGISTER_OP works from any namespace, as in a user's custom-op file.
namespace user_code {
REGISTER_OP("MfTestUserNamespaceOp")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, int32} = DT_FLOAT")
    .SetIsCommutative();
}  // namespace user_code

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;
using ::minflow::testing::ProtoToText;
using ::minflow::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;

REGISTER_OP("MfTestRegisteredOp").Input("a: int32").Output("b: float");

// Queues a registration of `builder` with `registry`.
void Register(OpRegistry* registry, const OpDefBuilder& builder) {
  registry->Register(
      [builder](OpRegistrationData* data) { return builder.Finalize(data); });
}

std::vector<std::string> Names(const OpList& ops) {
  std::vector<std::string> names;
  for (const OpDef& op : ops.op()) names.push_back(op.name());
  return names;
}

TEST(OpRegistryTest, RegisterOpMacroRegistersBeforeMain) {
  const OpRegistrationData* data = nullptr;
  MF_ASSERT_OK(OpRegistry::Global()->LookUp("MfTestRegisteredOp", &data));
  EXPECT_EQ(data->op_def.input_arg(0).type(), DT_INT32);
  EXPECT_EQ(data->owner, "minflow");
  const OpDef* op_def = nullptr;
  MF_ASSERT_OK(
      OpRegistry::Global()->LookUpOpDef("MfTestUserNamespaceOp", &op_def));
  EXPECT_TRUE(op_def->is_commutative());
  EXPECT_EQ(OpRegistry::Global()->LookUp("MfTestRegisteredOp"), data);
}

TEST(OpRegistryTest, GlobalRegistryHasNoRegistrationErrors) {
  for (const OpRegistrationError& e :
       OpRegistry::Global()->registration_errors()) {
    ADD_FAILURE() << e.status;
  }
}

TEST(OpRegistryTest, UnknownOpSaysNotRegisteredSuggestsAndHintsAtPlugins) {
  OpRegistry registry;
  for (const char* name : {"Conv2D", "Conv3D", "MatMul", "BatchMatMulV2"}) {
    Register(&registry, OpDefBuilder(name));
  }
  const OpRegistrationData* data = nullptr;
  EXPECT_THAT(
      registry.LookUp("Conv2d", &data),
      StatusIs(absl::StatusCode::kNotFound,
               AllOf(StartsWith("Op type not registered 'Conv2d' in this "
                                "process. Did you mean 'Conv2D', 'Conv3D'?"),
                     HasSubstr("load that plugin library"))));
  EXPECT_EQ(data, nullptr);
  EXPECT_THAT(registry.LookUp("BatchMatmulV3", &data),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("Did you mean 'BatchMatMulV2'?")));
  EXPECT_THAT(registry.LookUp("Softmax", &data),
              StatusIs(absl::StatusCode::kNotFound,
                       AllOf(StartsWith("Op type not registered 'Softmax'"),
                             Not(HasSubstr("Did you mean")))));
  EXPECT_EQ(registry.LookUp("Softmax"), nullptr);
  const OpDef* op_def = nullptr;
  EXPECT_THAT(registry.LookUpOpDef("Softmax", &op_def),
              StatusIs(absl::StatusCode::kNotFound));
}

TEST(OpRegistryTest, MalformedRegistrationIsKeptAsAnErrorNotAnOp) {
  OpRegistry registry;
  Register(&registry, OpDefBuilder("Bad").Attr("T: typo").Input("x: T"));
  Register(&registry, OpDefBuilder("lowercase"));
  Register(&registry, OpDefBuilder("Good").Input("x: float"));
  EXPECT_NE(registry.LookUp("Good"), nullptr);
  EXPECT_EQ(registry.LookUp("Bad"), nullptr);
  EXPECT_EQ(registry.LookUp("lowercase"), nullptr);
  const std::vector<OpRegistrationError> errors =
      registry.registration_errors();
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].op_name, "Bad");
  EXPECT_EQ(errors[0].owner, "minflow");
  EXPECT_THAT(errors[0].status,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       StartsWith("Registration of op 'Bad' from 'minflow' "
                                  "failed: Trouble parsing type string at "
                                  "'typo' from Attr(\"T: typo\") for Op "
                                  "Bad")));
  EXPECT_THAT(errors[1].status,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Invalid name: lowercase (Did you use "
                                 "CamelCase?)")));
}

TEST(OpRegistryTest, DuplicateNamesAreRejectedNamingBothOwners) {
  OpRegistry registry;
  Register(&registry, OpDefBuilder("Dup").Input("x: float"));
  {
    OpRegistry::ScopedOwner owner("/tmp/libcustom_ops.so");
    Register(&registry, OpDefBuilder("Dup").Input("x: int32"));
  }
  const OpRegistrationData* data = registry.LookUp("Dup");
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->op_def.input_arg(0).type(), DT_FLOAT);
  EXPECT_EQ(data->owner, "minflow");
  const auto errors = registry.registration_errors();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].owner, "/tmp/libcustom_ops.so");
  EXPECT_THAT(errors[0].status,
              StatusIs(absl::StatusCode::kAlreadyExists,
                       HasSubstr("Op with name Dup is already registered by "
                                 "'minflow'; a second registration came from "
                                 "'/tmp/libcustom_ops.so'")));
}

TEST(OpRegistryTest, ScopedOwnerNestsAndIsPerThread) {
  EXPECT_EQ(OpRegistry::CurrentOwner(), "minflow");
  {
    OpRegistry::ScopedOwner outer("liba.so");
    EXPECT_EQ(OpRegistry::CurrentOwner(), "liba.so");
    {
      OpRegistry::ScopedOwner inner("libb.so");
      EXPECT_EQ(OpRegistry::CurrentOwner(), "libb.so");
      std::string seen_elsewhere;
      std::thread([&] { seen_elsewhere = OpRegistry::CurrentOwner(); }).join();
      EXPECT_EQ(seen_elsewhere, "minflow");
    }
    EXPECT_EQ(OpRegistry::CurrentOwner(), "liba.so");
  }
  EXPECT_EQ(OpRegistry::CurrentOwner(), "minflow");
}

TEST(OpRegistryTest, RegistrationsWaitForTheFirstReader) {
  OpRegistry registry;
  int calls = 0;
  registry.Register([&calls](OpRegistrationData* data) {
    ++calls;
    return OpDefBuilder("Lazy").Finalize(data);
  });
  EXPECT_EQ(calls, 0);
  EXPECT_NE(registry.LookUp("Lazy"), nullptr);
  EXPECT_EQ(calls, 1);
  // Once in use, later registrations are processed at once.
  registry.Register([&calls](OpRegistrationData* data) {
    ++calls;
    return OpDefBuilder("Eager").Finalize(data);
  });
  EXPECT_EQ(calls, 2);
}

TEST(OpRegistryTest, PluginLoadingReportsWhatALibraryAdded) {
  OpRegistry registry;
  Register(&registry, OpDefBuilder("Builtin"));
  ASSERT_NE(registry.LookUp("Builtin"), nullptr);

  // What a plugin loader does around loading a library.
  std::vector<std::string> added;
  MF_ASSERT_OK(
      registry.SetWatcher([&added](const Status& s, const OpDef& op_def) {
        if (s.ok()) added.push_back(op_def.name());
        return s;
      }));
  EXPECT_THAT(
      registry.SetWatcher([](const Status& s, const OpDef&) { return s; }),
      StatusIs(absl::StatusCode::kAlreadyExists));
  registry.DeferRegistrations();
  {
    OpRegistry::ScopedOwner owner("libplugin.so");
    Register(&registry, OpDefBuilder("PluginA").Input("x: float"));
    Register(&registry, OpDefBuilder("PluginB").Output("y: nope"));
  }
  // Nothing from the library is visible before it has been processed.
  EXPECT_EQ(registry.LookUp("PluginA"), nullptr);
  EXPECT_THAT(registry.ProcessRegistrations(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Registration of op 'PluginB' from "
                                 "'libplugin.so' failed: Reference to unknown "
                                 "attr 'nope'")));
  MF_EXPECT_OK(registry.SetWatcher(nullptr));
  // The watcher saw PluginA pass, but the batch is all or nothing: one bad
  // op keeps every op of the library out.
  EXPECT_THAT(added, ElementsAre("PluginA"));
  EXPECT_EQ(registry.LookUp("PluginA"), nullptr);
  EXPECT_NE(registry.LookUp("Builtin"), nullptr);

  // A good batch registers every op, attributed to its owner.
  registry.DeferRegistrations();
  {
    OpRegistry::ScopedOwner owner("libplugin.so");
    Register(&registry, OpDefBuilder("PluginA").Input("x: float"));
    Register(&registry, OpDefBuilder("PluginC"));
  }
  MF_EXPECT_OK(registry.ProcessRegistrations());
  ASSERT_NE(registry.LookUp("PluginA"), nullptr);
  EXPECT_EQ(registry.LookUp("PluginA")->owner, "libplugin.so");
  EXPECT_NE(registry.LookUp("PluginC"), nullptr);

  // A library that fails to load has its queued registrations dropped.
  registry.DeferRegistrations();
  Register(&registry, OpDefBuilder("Abandoned"));
  registry.ClearDeferredRegistrations();
  MF_EXPECT_OK(registry.ProcessRegistrations());
  EXPECT_EQ(registry.LookUp("Abandoned"), nullptr);
}

TEST(OpRegistryTest, BatchRejectsANameRegisteredTwiceInIt) {
  OpRegistry registry;
  Register(&registry, OpDefBuilder("Builtin"));
  ASSERT_NE(registry.LookUp("Builtin"), nullptr);
  registry.DeferRegistrations();
  {
    OpRegistry::ScopedOwner owner("libtwice.so");
    Register(&registry, OpDefBuilder("Twice"));
    Register(&registry, OpDefBuilder("Twice").Input("x: float"));
  }
  EXPECT_THAT(registry.ProcessRegistrations(),
              StatusIs(absl::StatusCode::kAlreadyExists,
                       HasSubstr("Op with name Twice is already registered by "
                                 "'libtwice.so'; a second registration came "
                                 "from 'libtwice.so'")));
  EXPECT_EQ(registry.LookUp("Twice"), nullptr);
  // Registrations made after the batch are processed one by one again.
  Register(&registry, OpDefBuilder("Later"));
  EXPECT_NE(registry.LookUp("Later"), nullptr);
}

TEST(OpRegistryTest, WatcherCanExcuseAFailureOrVetoAnOp) {
  OpRegistry registry;
  Register(&registry, OpDefBuilder("Twice"));
  ASSERT_NE(registry.LookUp("Twice"), nullptr);
  MF_ASSERT_OK(registry.SetWatcher([](const Status& s, const OpDef& op) {
    if (absl::IsAlreadyExists(s)) return OkStatus();  // library loaded twice
    if (op.name() == "Vetoed") return errors::PermissionDenied("not here");
    return s;
  }));
  Register(&registry, OpDefBuilder("Twice"));
  Register(&registry, OpDefBuilder("Vetoed"));
  MF_ASSERT_OK(registry.SetWatcher(nullptr));
  EXPECT_EQ(registry.LookUp("Vetoed"), nullptr);
  const auto errors = registry.registration_errors();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0].status, StatusIs(absl::StatusCode::kPermissionDenied,
                                         HasSubstr("not here")));
}

TEST(OpRegistryTest, ExportsSortedByNameAndAsText) {
  OpRegistry registry;
  for (const char* name : {"Zeta", "_Internal", "Alpha", "Mid"}) {
    Register(&registry, OpDefBuilder(name).Attr("a: int = 1"));
  }
  OpList ops;
  registry.Export(/*include_internal=*/false, &ops);
  EXPECT_THAT(Names(ops), ElementsAre("Alpha", "Mid", "Zeta"));
  EXPECT_THAT(Names(registry.GetRegisteredOps()),
              ElementsAre("Alpha", "Mid", "Zeta", "_Internal"));
  std::vector<OpDef> op_defs;
  registry.GetRegisteredOps(&op_defs);
  ASSERT_EQ(op_defs.size(), 4u);
  EXPECT_EQ(op_defs[0].name(), "Alpha");

  const std::string text = registry.ExportText(/*include_internal=*/true);
  EXPECT_THAT(text, StartsWith("op {\n  name: \"Alpha\"\n"));
  EXPECT_EQ(ProtoToText(ParseTextProtoOrDie<OpList>(text)),
            ProtoToText(registry.GetRegisteredOps()));
  EXPECT_EQ(registry.DebugString(/*include_internal=*/false),
            "Op<name=Alpha; signature= -> ; attr=a:int,default=1>\n"
            "Op<name=Mid; signature= -> ; attr=a:int,default=1>\n"
            "Op<name=Zeta; signature= -> ; attr=a:int,default=1>\n");
}

TEST(OpRegistryTest, ConcurrentLookupsAndRegistrationsAreSafe) {
  OpRegistry registry;
  Register(&registry, OpDefBuilder("Seed"));
  std::atomic<bool> stop{false};
  std::atomic<int> found{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        if (registry.LookUp("Seed") != nullptr) found.fetch_add(1);
        const OpRegistrationData* missing = nullptr;
        registry.LookUp("Missing", &missing).IgnoreError();
        OpList ops;
        registry.Export(true, &ops);
      }
    });
  }
  std::thread writer([&] {
    for (int i = 0; i < 200; ++i) {
      Register(&registry, OpDefBuilder(absl::StrCat("Op", i)));
    }
  });
  writer.join();
  stop.store(true);
  for (auto& reader : readers) reader.join();
  EXPECT_GT(found.load(), 0);
  EXPECT_EQ(registry.GetRegisteredOps().op_size(), 201);
  EXPECT_THAT(registry.registration_errors(), IsEmpty());
}

TEST(OpRegistryTest, OpListRegistryLooksUpTheListsOps) {
  const OpList ops = ParseTextProtoOrDie<OpList>(
      "op { name: 'A' } op { name: 'B' input_arg { name: 'x' type: DT_FLOAT "
      "} }");
  OpListOpRegistry registry(&ops);
  const OpDef* op_def = nullptr;
  MF_ASSERT_OK(registry.LookUpOpDef("B", &op_def));
  EXPECT_EQ(op_def->input_arg_size(), 1);
  EXPECT_THAT(registry.LookUpOpDef("C", &op_def),
              StatusIs(absl::StatusCode::kNotFound,
                       "Op type not registered 'C' in the op list."));
  EXPECT_EQ(op_def, nullptr);
}

// --- Against TensorFlow
// ---------------------------------------------------------

// Ops minflow registers under a TensorFlow name but on purpose not as
// TensorFlow declares them: name -> why. Keep each reason specific.
const std::map<std::string, std::string>& DeliberateDifferences() {
  static const auto* const kDifferences =
      new std::map<std::string, std::string>{};
  return *kDifferences;
}

TEST(OpRegistryTest, EveryOpRegisteredUnderATensorFlowNameIsCompatible) {
  std::ifstream file(MINFLOW_TF_OPS_PBTXT);
  ASSERT_TRUE(file) << "TensorFlow's op list is missing: "
                    << MINFLOW_TF_OPS_PBTXT;
  std::stringstream buffer;
  buffer << file.rdbuf();
  OpList tf_ops;
  ASSERT_TRUE(
      google::protobuf::TextFormat::ParseFromString(buffer.str(), &tf_ops));
  std::map<std::string, const OpDef*> tf_by_name;
  for (const OpDef& op : tf_ops.op()) tf_by_name.emplace(op.name(), &op);

  int checked = 0;
  for (const OpRegistrationData* data :
       OpRegistry::Global()->GetRegistrations()) {
    const auto tf = tf_by_name.find(data->op_def.name());
    if (tf == tf_by_name.end()) continue;
    ++checked;
    const Status s = OpDefCompatible(*tf->second, data->op_def);
    const auto difference = DeliberateDifferences().find(tf->first);
    if (difference == DeliberateDifferences().end()) {
      EXPECT_TRUE(s.ok()) << "minflow's " << tf->first
                          << " would not import TensorFlow graphs: " << s;
    } else {
      EXPECT_FALSE(s.ok()) << tf->first << " is listed as different ("
                           << difference->second << ") but is compatible";
    }
  }
  for (const auto& [name, reason] : DeliberateDifferences()) {
    EXPECT_NE(OpRegistry::Global()->LookUp(name), nullptr)
        << name << " is listed as different but not registered";
  }
  RecordProperty("ops_checked_against_tensorflow", checked);
  std::cout << "[ INFO     ] " << checked
            << " registered ops carry a TensorFlow name; all checked\n";
}

}  // namespace
}  // namespace minflow
