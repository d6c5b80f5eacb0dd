#include "examples/train_digits/digits_training.h"

#include <cmath>

#include "minflow/cc/ops/standard_ops.h"
#include "minflow/cc/training/optimizer.h"

namespace digits {
namespace {

namespace ops = minflow::ops;
using minflow::Output;
using minflow::Scope;
using minflow::Tensor;
using minflow::TensorShape;

// The glyphs of examples/graphs/make_digits_mlp.py, row by row.
constexpr const char* kGlyphs[kClasses][7] = {
    {"01110", "10001", "10011", "10101", "11001", "10001", "01110"},
    {"00100", "01100", "00100", "00100", "00100", "00100", "01110"},
    {"01110", "10001", "00001", "00010", "00100", "01000", "11111"},
    {"11111", "00010", "00100", "00010", "00001", "10001", "01110"},
    {"00010", "00110", "01010", "10010", "11111", "00010", "00010"},
    {"11111", "10000", "11110", "00001", "00001", "10001", "01110"},
    {"00110", "01000", "10000", "11110", "10001", "10001", "01110"},
    {"11111", "00001", "00010", "00100", "01000", "01000", "01000"},
    {"01110", "10001", "10001", "01110", "10001", "10001", "01110"},
    {"01110", "10001", "10001", "01111", "00001", "00010", "01100"},
};

// A standard normal from two uniforms (Box-Muller).
double Normal(GlyphSource* rng) {
  const double u1 = 1.0 - rng->Uniform();  // in (0, 1]
  const double u2 = rng->Uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

Tensor RandomWeights(GlyphSource* rng, int rows, int cols) {
  Tensor w(minflow::DT_FLOAT, TensorShape({rows, cols}));
  const double scale = std::sqrt(2.0 / rows);
  for (int64_t i = 0; i < w.NumElements(); ++i) {
    w.flat<float>()(i) = static_cast<float>(scale * Normal(rng));
  }
  return w;
}

Tensor Zeros(int n) {
  Tensor b(minflow::DT_FLOAT, TensorShape({n}));
  b.flat<float>().setZero();
  return b;
}

}  // namespace

double GlyphSource::Uniform() {
  state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
  return static_cast<double>(state_ >> 11) * (1.0 / 9007199254740992.0);
}

int GlyphSource::Below(int n) { return static_cast<int>(Uniform() * n); }

void GlyphSource::Batch(int n, Tensor* images, Tensor* labels) {
  *images = Tensor(minflow::DT_FLOAT, TensorShape({n, kPixels}));
  *labels = Tensor(minflow::DT_INT32, TensorShape({n}));
  auto pixels = images->matrix<float>();
  for (int i = 0; i < n; ++i) {
    const int digit = Below(kClasses);
    labels->flat<int32_t>()(i) = digit;
    for (int p = 0; p < kPixels; ++p) {
      pixels(i, p) = kGlyphs[digit][p / 5][p % 5] == '1' ? 1.f : 0.f;
    }
    const int flips = Below(4);
    for (int f = 0; f < flips; ++f) {
      const int p = Below(kPixels);
      pixels(i, p) = 1.f - pixels(i, p);
    }
  }
}

const std::vector<const char*>& VariableNames() {
  static const auto* names =
      new std::vector<const char*>{"w1", "b1", "w2", "b2"};
  return *names;
}

minflow::Status BuildModel(const Scope& scope, uint64_t seed, Model* model) {
  GlyphSource rng(seed);
  const std::vector<Tensor> initial = {
      RandomWeights(&rng, kPixels, kHidden), Zeros(kHidden),
      RandomWeights(&rng, kHidden, kClasses), Zeros(kClasses)};
  for (size_t i = 0; i < initial.size(); ++i) {
    const Scope s = scope.NewSubScope(VariableNames()[i]);
    auto handle = ops::VarHandleOp(s.WithOpName("var"), minflow::DT_FLOAT,
                                   initial[i].shape());
    model->handles.push_back(handle);
    model->init.push_back(
        ops::AssignVariableOp(s.WithOpName("init"), handle,
                              ops::Const(s.WithOpName("initial"), initial[i]))
            .operation);
    model->reads.push_back(
        ops::ReadVariableOp(s.WithOpName("read"), handle, minflow::DT_FLOAT));
  }
  model->images =
      ops::Placeholder(scope.WithOpName("images"), minflow::DT_FLOAT,
                       ops::Placeholder::Shape({-1, kPixels}));
  model->labels =
      ops::Placeholder(scope.WithOpName("labels"), minflow::DT_INT32,
                       ops::Placeholder::Shape({-1}));
  const Scope dense1 = scope.NewSubScope("dense1");
  auto hidden = ops::Relu(
      dense1,
      ops::BiasAdd(dense1, ops::MatMul(dense1, model->images, model->reads[0]),
                   model->reads[1]));
  const Scope dense2 = scope.NewSubScope("dense2");
  model->logits = ops::BiasAdd(
      dense2, ops::MatMul(dense2, hidden, model->reads[2]), model->reads[3]);
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(
      scope.WithOpName("xent"), model->logits, model->labels);
  model->loss = ops::Mean(scope.WithOpName("loss"), xent.loss, {0});
  model->digit = ops::ArgMax(scope.WithOpName("digit"), model->logits, 1);
  return scope.status();
}

minflow::Status AddTraining(const Scope& scope, float lr, Model* model) {
  minflow::AdamOptimizer adam(lr);
  MF_RETURN_IF_ERROR(
      adam.Minimize(scope, model->loss, model->handles, &model->train));
  model->train_init = adam.initializers();
  return scope.status();
}

}  // namespace digits
