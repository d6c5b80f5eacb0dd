#include "cc/framework/cc_op_gen.h"

#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "minflow/op_def.pb.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace cc_op_gen {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;

OpList ParseOps(const std::string& text) {
  OpList ops;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &ops));
  return ops;
}

Files GenerateOk(const std::string& text, int num_sources = 1) {
  Options options;
  options.header_include = "gen/ops.h";
  options.num_sources = num_sources;
  StatusOr<Files> files = Generate(ParseOps(text), options);
  EXPECT_TRUE(files.ok()) << files.status();
  return files.ok() ? *files : Files();
}

constexpr char kMatMul[] = R"pb(
  op {
    name: "MatMul"
    input_arg { name: "a" type_attr: "T" }
    input_arg { name: "b" type_attr: "T" }
    output_arg { name: "product" type_attr: "T" description: "a times b" }
    attr {
      name: "transpose_a"
      type: "bool"
      default_value { b: false }
    }
    attr {
      name: "T"
      type: "type"
      allowed_values { list { type: DT_FLOAT type: DT_DOUBLE } }
    }
    summary: "Multiplies two matrices."
    description: "The inner dimensions must agree."
  }
)pb";

TEST(CcOpGenTest, SingleOutputOpConvertsToOutput) {
  const Files files = GenerateOk(kMatMul);
  const std::string& h = files.header;
  EXPECT_THAT(h, HasSubstr("class MatMul {"));
  // The type attr is inferred from the inputs: no parameter, no setter.
  EXPECT_THAT(h, HasSubstr("MatMul(const ::minflow::Scope& scope, "
                           "::minflow::Input a, ::minflow::Input b);"));
  EXPECT_THAT(h, HasSubstr("MatMul(const ::minflow::Scope& scope, "
                           "::minflow::Input a, ::minflow::Input b, "
                           "const MatMul::Attrs& attrs);"));
  EXPECT_THAT(h, Not(HasSubstr("Attrs T(")));
  EXPECT_THAT(h, HasSubstr("operator ::minflow::Output() const { return "
                           "product; }"));
  EXPECT_THAT(h, HasSubstr("::minflow::Output product;"));
  // Setters with the OpDef's default.
  EXPECT_THAT(h, HasSubstr("Attrs TransposeA(bool x) const {"));
  EXPECT_THAT(h, HasSubstr("static Attrs TransposeA(bool x) {"));
  EXPECT_THAT(h, HasSubstr("bool transpose_a_ = false;"));
  // The doc comment.
  EXPECT_THAT(h, HasSubstr("/// Multiplies two matrices.\n///\n/// The inner "
                           "dimensions must agree.\n"));
  EXPECT_THAT(h, HasSubstr("/// * `Output` product: a times b\n"));
  EXPECT_THAT(h, HasSubstr("/// * TransposeA: Defaults to false.\n"));
  // The constructor, out of line.
  ASSERT_EQ(files.sources.size(), 1u);
  const std::string& cc = files.sources[0];
  EXPECT_THAT(cc, HasSubstr("#include \"gen/ops.h\""));
  EXPECT_THAT(cc, HasSubstr("::minflow::OpBuilder mf_builder(scope, "
                            "\"MatMul\");"));
  EXPECT_THAT(cc, HasSubstr("mf_builder.Attr(\"transpose_a\", "
                            "attrs.transpose_a_);"));
  EXPECT_THAT(cc, HasSubstr("this->product = mf_builder.GetOutput("
                            "\"product\");"));
  EXPECT_THAT(cc, HasSubstr(": MatMul(scope, a, b, MatMul::Attrs()) {}"));
}

TEST(CcOpGenTest, DefaultsOfEveryKindAreRendered) {
  const Files files = GenerateOk(R"pb(
    op {
      name: "Many"
      output_arg { name: "y" type: DT_FLOAT }
      attr {
        name: "padding"
        type: "string"
        default_value { s: "SA\"ME" }
      }
      attr {
        name: "count"
        type: "int"
        default_value { i: -3 }
      }
      attr {
        name: "alpha"
        type: "float"
        default_value { f: 0.5 }
      }
      attr {
        name: "one"
        type: "float"
        default_value { f: 1 }
      }
      attr {
        name: "out_type"
        type: "type"
        default_value { type: DT_INT64 }
      }
      attr {
        name: "shape"
        type: "shape"
        default_value {
          shape {
            dim { size: -1 }
            dim { size: 2 }
          }
        }
      }
      attr {
        name: "any_shape"
        type: "shape"
        default_value { shape { unknown_rank: true } }
      }
      attr {
        name: "strides"
        type: "list(int)"
        default_value { list { i: 1 i: 2 } }
      }
      attr {
        name: "names"
        type: "list(string)"
        default_value { list {} }
      }
    }
  )pb");
  const std::string& h = files.header;
  EXPECT_THAT(h, HasSubstr("std::string padding_ = \"SA\\\"ME\";"));
  EXPECT_THAT(h, HasSubstr("Attrs Padding(absl::string_view x) const"));
  EXPECT_THAT(h, HasSubstr("int64_t count_ = -3;"));
  EXPECT_THAT(h, HasSubstr("float alpha_ = 0.5f;"));
  EXPECT_THAT(h, HasSubstr("float one_ = 1.0f;"));
  EXPECT_THAT(h, HasSubstr("::minflow::DataType out_type_ = "
                           "::minflow::DT_INT64;"));
  EXPECT_THAT(h, HasSubstr("::minflow::PartialTensorShape shape_ = "
                           "::minflow::PartialTensorShape("
                           "absl::Span<const int64_t>({-1, 2}));"));
  EXPECT_THAT(h, HasSubstr("::minflow::PartialTensorShape any_shape_ = "
                           "::minflow::PartialTensorShape();"));
  EXPECT_THAT(h, HasSubstr("std::vector<int64_t> strides_ = {1, 2};"));
  EXPECT_THAT(h, HasSubstr("Attrs Strides(absl::Span<const int64_t> x) const"));
  EXPECT_THAT(h, HasSubstr("std::vector<std::string> names_ = {};"));
  EXPECT_THAT(files.sources[0],
              HasSubstr("mf_builder.Attr(\"strides\", "
                        "absl::MakeConstSpan(attrs.strides_));"));
  EXPECT_THAT(files.sources[0],
              HasSubstr("mf_builder.Attr(\"padding\", "
                        "absl::string_view(attrs.padding_));"));
}

TEST(CcOpGenTest, ListInputsAndRequiredAttrsAreParameters) {
  const Files files = GenerateOk(R"pb(
    op {
      name: "ConcatLike"
      input_arg { name: "values" type_attr: "T" number_attr: "N" }
      input_arg { name: "axis" type: DT_INT32 }
      input_arg { name: "extra" type_list_attr: "Tlist" }
      output_arg { name: "output" type_attr: "T" }
      attr { name: "N" type: "int" has_minimum: true minimum: 1 }
      attr { name: "T" type: "type" }
      attr { name: "Tlist" type: "list(type)" }
      attr { name: "mode" type: "string" }
      attr { name: "dims" type: "list(int)" }
      attr { name: "out_dtype" type: "type" }
    }
  )pb");
  // N, T and Tlist come from the inputs; mode, dims and out_dtype are
  // required parameters, in the OpDef's order.
  EXPECT_THAT(files.header,
              HasSubstr("ConcatLike(const ::minflow::Scope& scope, "
                        "::minflow::InputList values, ::minflow::Input axis, "
                        "::minflow::InputList extra, absl::string_view mode, "
                        "absl::Span<const int64_t> dims, ::minflow::DataType "
                        "out_dtype);"));
  EXPECT_THAT(files.header, Not(HasSubstr("struct Attrs")));
  EXPECT_THAT(files.sources[0],
              HasSubstr("mf_builder.Attr(\"mode\", absl::string_view(mode));"));
}

TEST(CcOpGenTest, MultipleAndListOutputsAreMembers) {
  const Files files = GenerateOk(R"pb(
    op {
      name: "SplitLike"
      input_arg { name: "value" type: DT_FLOAT }
      output_arg { name: "parts" type: DT_FLOAT number_attr: "num_split" }
      output_arg { name: "index" type: DT_INT32 }
      attr { name: "num_split" type: "int" }
    }
    op {
      name: "OnlyList"
      input_arg { name: "value" type: DT_FLOAT }
      output_arg { name: "parts" type: DT_FLOAT number_attr: "num" }
      attr { name: "num" type: "int" }
    }
    op { name: "Effect" }
  )pb");
  const std::string& h = files.header;
  EXPECT_THAT(h, HasSubstr("::minflow::OutputList parts;\n  "
                           "::minflow::Output index;\n"));
  EXPECT_THAT(files.sources[0],
              HasSubstr("this->parts = mf_builder.GetOutputList(\"parts\");"));
  // Only a single plain output converts to Output; a lone list indexes.
  EXPECT_THAT(h, HasSubstr("::minflow::Output operator[](size_t index) const "
                           "{ return parts[index]; }"));
  EXPECT_THAT(h, HasSubstr("operator ::minflow::Operation() const { return "
                           "operation; }"));
  // An output-less op has a constructor taking the scope alone.
  EXPECT_THAT(h, HasSubstr("Effect(const ::minflow::Scope& scope);"));
}

TEST(CcOpGenTest, ReservedNamesGetATrailingUnderscore) {
  const Files files = GenerateOk(R"pb(
    op {
      name: "Keywords"
      input_arg { name: "default" type: DT_FLOAT }
      input_arg { name: "scope" type: DT_FLOAT }
      output_arg { name: "operation" type: DT_FLOAT }
      attr {
        name: "new"
        type: "bool"
        default_value { b: true }
      }
    }
  )pb");
  EXPECT_THAT(files.header,
              HasSubstr("Keywords(const ::minflow::Scope& scope, "
                        "::minflow::Input default_, ::minflow::Input "
                        "scope_);"));
  EXPECT_THAT(files.header, HasSubstr("::minflow::Output operation_;"));
  EXPECT_THAT(files.header, HasSubstr("Attrs New(bool x) const"));
  EXPECT_THAT(files.sources[0],
              HasSubstr("this->operation_ = mf_builder.GetOutput("
                        "\"operation\");"));
}

TEST(CcOpGenTest, InternalOpsAndConstGetNoClass) {
  const Files files = GenerateOk(R"pb(
    op { name: "_Internal" }
    op {
      name: "Const"
      output_arg { name: "output" type_attr: "dtype" }
      attr { name: "value" type: "tensor" }
      attr { name: "dtype" type: "type" }
    }
    op { name: "Public" }
  )pb");
  EXPECT_THAT(files.header, Not(HasSubstr("_Internal")));
  EXPECT_THAT(files.header, Not(HasSubstr("class Const")));
  EXPECT_THAT(files.header, HasSubstr("class Public {"));
}

TEST(CcOpGenTest, NamespacedOpIsAClassInANestedNamespace) {
  const Files files = GenerateOk(R"pb(
    op {
      name: "Examples>ZeroOut"
      input_arg { name: "to_zero" type: DT_INT32 }
      output_arg { name: "zeroed" type: DT_INT32 }
    }
  )pb");
  EXPECT_THAT(files.header, HasSubstr("namespace Examples {\n\n"));
  EXPECT_THAT(files.header, HasSubstr("class ZeroOut {"));
  EXPECT_THAT(files.header, HasSubstr("}  // namespace Examples\n"));
  EXPECT_THAT(files.sources[0], HasSubstr("ZeroOut::ZeroOut("));
  // The op keeps its registered name.
  EXPECT_THAT(files.sources[0],
              HasSubstr("OpBuilder mf_builder(scope, \"Examples>ZeroOut\");"));
}

TEST(CcOpGenTest, DefinitionsAreSplitOverTheSources) {
  const Files files = GenerateOk(R"pb(
                                   op { name: "A" }
                                   op { name: "B" }
                                   op { name: "C" }
                                   op { name: "D" }
                                 )pb",
                                 2);
  ASSERT_EQ(files.sources.size(), 2u);
  EXPECT_THAT(files.sources[0], HasSubstr("A::A("));
  EXPECT_THAT(files.sources[0], HasSubstr("B::B("));
  EXPECT_THAT(files.sources[1], HasSubstr("C::C("));
  EXPECT_THAT(files.sources[1], HasSubstr("D::D("));
  EXPECT_THAT(files.sources[1], Not(HasSubstr("A::A(")));
}

TEST(CcOpGenTest, OptionalFuncAttrIsAnErrorNamingTheOp) {
  Options options;
  options.header_include = "x.h";
  EXPECT_THAT(Generate(ParseOps(R"pb(
                         op {
                           name: "WithFunc"
                           attr {
                             name: "f"
                             type: "func"
                             default_value { func { name: "g" } }
                           }
                         }
                       )pb"),
                       options)
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("WithFunc"), HasSubstr("'f'"))));
}

TEST(CcOpGenTest, ZeroSourcesIsAnError) {
  Options options;
  options.num_sources = 0;
  EXPECT_THAT(Generate(OpList(), options).status(),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace cc_op_gen
}  // namespace minflow
