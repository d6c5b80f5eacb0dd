// The digits MLP of examples/graphs/digits_mlp.pbtxt (35-32-10, ReLU,
// softmax), built with resource variables and a training op, and the data
// it learns from: the 5x7 glyphs 0..9 with pixels flipped at random. Used
// by the train_digits example and by bench/training_bench.cc.
#pragma once

#include <cstdint>
#include <vector>

#include "minflow/cc/framework/ops.h"
#include "minflow/cc/framework/scope.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"

namespace digits {

inline constexpr int kPixels = 35;
inline constexpr int kHidden = 32;
inline constexpr int kClasses = 10;

// A deterministic source of glyphs: the same seed gives the same batches on
// every machine (a 64-bit LCG, not <random>'s distributions, whose output
// differs between standard libraries).
class GlyphSource {
 public:
  explicit GlyphSource(uint64_t seed) : state_(seed) {}
  // `n` glyphs with 0..3 pixels flipped each: images float [n,35] and their
  // digits int32 [n].
  void Batch(int n, minflow::Tensor* images, minflow::Tensor* labels);
  // A float in [0, 1) and an int in [0, n).
  double Uniform();
  int Below(int n);

 private:
  uint64_t state_;
};

// The network and its training graph.
struct Model {
  minflow::Output images;  // Placeholder float [?,35]
  minflow::Output labels;  // Placeholder int32 [?]
  minflow::Output logits;  // [?,10]
  minflow::Output loss;    // scalar: mean sparse softmax cross-entropy
  minflow::Output digit;   // ArgMax of the logits, int64 [?]
  // The variables' handles and reads (w1, b1, w2, b2).
  std::vector<minflow::Output> handles;
  std::vector<minflow::Output> reads;
  // Sets every variable to its initial value (random weights from `seed`,
  // zero biases; He initialisation as make_digits_mlp.py does).
  std::vector<minflow::Operation> init;
  // One Adam step on `loss` (empty until AddTraining).
  minflow::Operation train;
  // Runs with `train`'s slot variables' initialisers too.
  std::vector<minflow::Operation> train_init;
};

// Builds the forward network and the loss into `scope`.
minflow::Status BuildModel(const minflow::Scope& scope, uint64_t seed,
                           Model* model);

// Adds Adam (learning rate `lr`) minimising the loss over the variables.
minflow::Status AddTraining(const minflow::Scope& scope, float lr,
                            Model* model);

// The variable names in checkpoints, in `handles` order.
const std::vector<const char*>& VariableNames();

}  // namespace digits
