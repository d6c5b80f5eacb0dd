// NonMaxSuppressionV3-V5 and CombinedNonMaxSuppression: TF's documented
// cases, random boxes against a plain greedy reference, padding, soft NMS,
// the shape functions against the outputs, and every error path.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"
#include "tests/kernels/nn_test_util.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

// TensorFlow's three clusters: boxes 0-2 overlap, 3-4 overlap, 5 alone.
const std::vector<float> kBoxes = {0, 0,     1, 1,     0, 0.1f, 1, 1.1f,
                                   0, -0.1f, 1, 0.9f,  0, 10,   1, 11,
                                   0, 10.1f, 1, 11.1f, 0, 100,  1, 101};
const std::vector<float> kScores = {.9f, .75f, .6f, .95f, .5f, .3f};

class NonMaxSuppressionOpTest : public test::ArrayOpTest {
 protected:
  void MakeV(int version, bool pad = false, DataType t = DT_FLOAT) {
    auto& b = MakeNode("NonMaxSuppressionV" + std::to_string(version))
                  .Input(t)
                  .Input(t)
                  .Input(DT_INT32)
                  .Input(t)
                  .Input(t);
    if (version == 5) b.Input(t);
    if (version >= 4) b.Attr("pad_to_max_output_size", pad);
    MF_ASSERT_OK(MakeOp());
  }
  void AddInputs(const std::vector<float>& boxes,
                 const std::vector<float>& scores, int32_t max_output,
                 float iou, float score_threshold, float sigma = -1) {
    AddInputFromArray<float>(
        TensorShape({static_cast<int64_t>(boxes.size()) / 4, 4}), boxes);
    AddInputFromArray<float>(TensorShape({static_cast<int64_t>(scores.size())}),
                             scores);
    AddInputFromArray<int32_t>(TensorShape({}), {max_output});
    AddInputFromArray<float>(TensorShape({}), {iou});
    AddInputFromArray<float>(TensorShape({}), {score_threshold});
    if (sigma >= 0) AddInputFromArray<float>(TensorShape({}), {sigma});
  }
  std::vector<int32_t> Indices() {
    const Tensor& t = *GetOutput(0);
    return std::vector<int32_t>(t.base<const int32_t>(),
                                t.base<const int32_t>() + t.NumElements());
  }
};

float ReferenceIOU(const float* a, const float* b) {
  const float ay0 = std::min(a[0], a[2]), ay1 = std::max(a[0], a[2]);
  const float ax0 = std::min(a[1], a[3]), ax1 = std::max(a[1], a[3]);
  const float by0 = std::min(b[0], b[2]), by1 = std::max(b[0], b[2]);
  const float bx0 = std::min(b[1], b[3]), bx1 = std::max(b[1], b[3]);
  const double area_a = (ay1 - ay0) * (ax1 - ax0);
  const double area_b = (by1 - by0) * (bx1 - bx0);
  if (area_a <= 0 || area_b <= 0) return 0;
  const double ih = std::max(0.0f, std::min(ay1, by1) - std::max(ay0, by0));
  const double iw = std::max(0.0f, std::min(ax1, bx1) - std::max(ax0, bx0));
  return static_cast<float>(ih * iw / (area_a + area_b - ih * iw));
}

// Plain greedy NMS: boxes by descending score (ties: lower index), each
// kept unless it overlaps a kept one by more than `iou`.
std::vector<int32_t> ReferenceNMS(const std::vector<float>& boxes,
                                  const std::vector<float>& scores,
                                  int max_output, float iou, float min_score) {
  std::vector<int32_t> order(scores.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return scores[a] > scores[b]; });
  std::vector<int32_t> kept;
  for (int32_t i : order) {
    if (static_cast<int>(kept.size()) == max_output) break;
    if (!(scores[i] > min_score)) continue;
    bool ok = true;
    for (int32_t k : kept) {
      if (ReferenceIOU(&boxes[4 * i], &boxes[4 * k]) > iou) ok = false;
    }
    if (ok) kept.push_back(i);
  }
  return kept;
}

TEST_F(NonMaxSuppressionOpTest, TensorFlowThreeClusters) {
  MakeV(3);
  AddInputs(kBoxes, kScores, 3, 0.5f, 0.0f);
  RunAndCheckShapes();
  EXPECT_EQ(Indices(), (std::vector<int32_t>{3, 0, 5}));
  // At most two.
  MakeV(3);
  AddInputs(kBoxes, kScores, 2, 0.5f, 0.0f);
  RunAndCheckShapes();
  EXPECT_EQ(Indices(), (std::vector<int32_t>{3, 0}));
  // A score threshold drops box 5.
  MakeV(3);
  AddInputs(kBoxes, kScores, 3, 0.5f, 0.4f);
  RunAndCheckShapes();
  EXPECT_EQ(Indices(), (std::vector<int32_t>{3, 0}));
  // Flipped corners select the same boxes.
  const std::vector<float> flipped = {1, 1,     0, 0,     0, 0.1f, 1, 1.1f,
                                      0, .9f,   1, -0.1f, 0, 10,   1, 11,
                                      1, 10.1f, 0, 11.1f, 1, 101,  0, 100};
  MakeV(3);
  AddInputs(flipped, kScores, 3, 0.5f, 0.0f);
  RunAndCheckShapes();
  EXPECT_EQ(Indices(), (std::vector<int32_t>{3, 0, 5}));
  // IOU threshold 1 keeps every box; 0 keeps only disjoint ones.
  MakeV(3);
  AddInputs(kBoxes, kScores, 6, 1.0f, 0.0f);
  RunAndCheckShapes();
  EXPECT_EQ(Indices(), (std::vector<int32_t>{3, 0, 1, 2, 4, 5}));
}

TEST_F(NonMaxSuppressionOpTest, RandomBoxesMatchGreedyReference) {
  uint32_t state = 12345;
  const auto next = [&]() {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / (1 << 24);
  };
  size_t selected_in_all = 0;
  for (int trial = 0; trial < 20; ++trial) {
    const int n = 1 + trial * 7;
    std::vector<float> boxes, scores;
    for (int i = 0; i < n; ++i) {
      const float y = next() * 4, x = next() * 4;
      boxes.insert(boxes.end(), {y, x, y + next() * 2, x + next() * 2});
      scores.push_back(next());
    }
    const int max_output = 1 + trial % 9;
    const float iou = 0.1f + 0.04f * trial, min_score = 0.02f * trial;
    MakeV(4);
    AddInputs(boxes, scores, max_output, iou, min_score);
    RunAndCheckShapes();
    const std::vector<int32_t> want =
        ReferenceNMS(boxes, scores, max_output, iou, min_score);
    EXPECT_EQ(Indices(), want) << "trial " << trial;
    EXPECT_EQ(GetOutput(1)->base<int32_t>()[0], static_cast<int>(want.size()));
    selected_in_all += want.size();
  }
  // The cases select many boxes, not just the trivial first one.
  EXPECT_GT(selected_in_all, 60u);
}

TEST_F(NonMaxSuppressionOpTest, V4PadsToMaxOutputSize) {
  MakeV(4, /*pad=*/true);
  AddInputs(kBoxes, kScores, 6, 0.5f, 0.4f);
  RunAndCheckShapes();
  EXPECT_EQ(Indices(), (std::vector<int32_t>{3, 0, 0, 0, 0, 0}));
  EXPECT_EQ(GetOutput(1)->base<int32_t>()[0], 2);
  MakeV(4, /*pad=*/false);
  AddInputs(kBoxes, kScores, 6, 0.5f, 0.4f);
  RunAndCheckShapes();
  EXPECT_EQ(Indices(), (std::vector<int32_t>{3, 0}));
}

TEST_F(NonMaxSuppressionOpTest, V5SoftNmsDecaysScores) {
  // TensorFlow's soft-NMS example: sigma 0.5 decays overlapping scores by
  // exp(-iou^2 / (2 * sigma)) instead of dropping them.
  MakeV(5);
  AddInputs(kBoxes, kScores, 6, 0.5f, 0.0f, 0.5f);
  RunAndCheckShapes();
  EXPECT_EQ(Indices(), (std::vector<int32_t>{3, 0, 1, 5, 4, 2}));
  test::ExpectNearReference<float>(*GetOutput(1), TensorShape({6}),
                                   {0.95, 0.9, 0.384, 0.3, 0.256, 0.197}, 1e-3);
  EXPECT_EQ(GetOutput(2)->base<int32_t>()[0], 6);
  // sigma 0 is hard NMS, with the scores unchanged; padding fills zeros.
  MakeV(5, /*pad=*/true);
  AddInputs(kBoxes, kScores, 5, 0.5f, 0.0f, 0.0f);
  RunAndCheckShapes();
  EXPECT_EQ(Indices(), (std::vector<int32_t>{3, 0, 5, 0, 0}));
  test::ExpectNearReference<float>(*GetOutput(1), TensorShape({5}),
                                   {0.95, 0.9, 0.3, 0, 0}, 1e-7);
  EXPECT_EQ(GetOutput(2)->base<int32_t>()[0], 3);
}

TEST_F(NonMaxSuppressionOpTest, HalfBoxesAndThresholds) {
  MakeV(5, false, DT_HALF);
  std::vector<half> hb, hs;
  for (float v : kBoxes) hb.push_back(half(v));
  for (float v : kScores) hs.push_back(half(v));
  AddInputFromArray<half>(TensorShape({6, 4}), hb);
  AddInputFromArray<half>(TensorShape({6}), hs);
  AddInputFromArray<int32_t>(TensorShape({}), {3});
  AddInputFromArray<half>(TensorShape({}), {half(0.5f)});
  AddInputFromArray<half>(TensorShape({}), {half(0.0f)});
  AddInputFromArray<half>(TensorShape({}), {half(0.0f)});
  RunAndCheckShapes();
  EXPECT_EQ(Indices(), (std::vector<int32_t>{3, 0, 5}));
}

TEST_F(NonMaxSuppressionOpTest, EmptyAndZeroOutputs) {
  MakeV(3);
  AddInputs({}, {}, 3, 0.5f, 0.0f);
  RunAndCheckShapes();
  EXPECT_EQ(GetOutput(0)->NumElements(), 0);
  MakeV(4, true);
  AddInputs(kBoxes, kScores, 0, 0.5f, 0.0f);
  RunAndCheckShapes();
  EXPECT_EQ(GetOutput(0)->NumElements(), 0);
  MakeV(4, true);
  AddInputs({}, {}, 2, 0.5f, 0.0f);
  RunAndCheckShapes();
  EXPECT_EQ(Indices(), (std::vector<int32_t>{0, 0}));
  EXPECT_EQ(GetOutput(1)->base<int32_t>()[0], 0);
}

TEST_F(NonMaxSuppressionOpTest, RejectsBadInput) {
  const auto run = [&](const TensorShape& boxes, const TensorShape& scores,
                       const TensorShape& max_shape, int32_t max_output,
                       float iou, const TensorShape& thr_shape,
                       float sigma = 0) {
    MakeV(5);
    AddInputTensor(test::MakeTestTensor(DT_FLOAT, boxes));
    AddInputTensor(test::MakeTestTensor(DT_FLOAT, scores));
    AddInputFromArray<int32_t>(
        max_shape, std::vector<int32_t>(max_shape.num_elements(), max_output));
    AddInputFromArray<float>(TensorShape({}), {iou});
    AddInputFromArray<float>(thr_shape,
                             std::vector<float>(thr_shape.num_elements(), 0));
    AddInputFromArray<float>(TensorShape({}), {sigma});
    return RunOpKernel();
  };
  const auto invalid = [](const char* s) {
    return StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(s));
  };
  const TensorShape b({3, 4}), s({3}), scalar({});
  EXPECT_THAT(run(b, s, TensorShape({1}), 2, 0.5f, scalar),
              invalid("max_output_size must be 0-D, got shape [1]"));
  EXPECT_THAT(run(b, s, scalar, 2, 1.5f, scalar),
              invalid("iou_threshold must be in [0, 1]"));
  EXPECT_THAT(run(b, s, scalar, 2, std::nanf(""), scalar),
              invalid("iou_threshold must be in [0, 1]"));
  EXPECT_THAT(run(b, s, scalar, 2, 0.5f, TensorShape({2})),
              invalid("score_threshold must be 0-D, got shape [2]"));
  EXPECT_THAT(run(b, s, scalar, 2, 0.5f, scalar, -1.0f),
              invalid("soft_nms_sigma_val must be >= 0"));
  EXPECT_THAT(run(TensorShape({12}), s, scalar, 2, 0.5f, scalar),
              invalid("boxes must be 2-D"));
  EXPECT_THAT(run(TensorShape({3, 3}), s, scalar, 2, 0.5f, scalar),
              invalid("boxes must have 4 columns"));
  EXPECT_THAT(run(b, TensorShape({3, 1}), scalar, 2, 0.5f, scalar),
              invalid("scores must be 1-D"));
  EXPECT_THAT(run(b, TensorShape({2}), scalar, 2, 0.5f, scalar),
              invalid("scores has incompatible shape (Dimensions must be "
                      "equal, but are 3 and 2)"));
  EXPECT_THAT(run(b, s, scalar, -1, 0.5f, scalar),
              invalid("output size must be non-negative, but got -1"));
  // The soft_nms_sigma input's own rank.
  MakeV(5);
  AddInputs(kBoxes, kScores, 3, 0.5f, 0.0f);
  AddInputFromArray<float>(TensorShape({1}), {0.5f});
  ExpectInvalid("soft_nms_sigma must be 0-D, got shape [1]");
}

class CombinedNonMaxSuppressionOpTest : public test::ArrayOpTest {
 protected:
  void Make(bool pad_per_class, bool clip_boxes) {
    MakeNode("CombinedNonMaxSuppression")
        .Attr("pad_per_class", pad_per_class)
        .Attr("clip_boxes", clip_boxes);
    MF_ASSERT_OK(MakeOp());
  }
  void AddInputs(const TensorShape& boxes_shape,
                 const std::vector<float>& boxes,
                 const TensorShape& scores_shape,
                 const std::vector<float>& scores, int32_t per_class,
                 int32_t total, float iou, float min_score) {
    AddInputFromArray<float>(boxes_shape, boxes);
    AddInputFromArray<float>(scores_shape, scores);
    AddInputFromArray<int32_t>(TensorShape({}), {per_class});
    AddInputFromArray<int32_t>(TensorShape({}), {total});
    AddInputFromArray<float>(TensorShape({}), {iou});
    AddInputFromArray<float>(TensorShape({}), {min_score});
  }
};

TEST_F(CombinedNonMaxSuppressionOpTest, TensorFlowThreeClustersOneClass) {
  Make(false, false);
  AddInputs(TensorShape({1, 6, 1, 4}), kBoxes, TensorShape({1, 6, 1}), kScores,
            3, 3, 0.5f, 0.0f);
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({0, 10, 1, 11, 0, 0, 1, 1, 0, 100, 1, 101},
                            TensorShape({1, 3, 4})));
  test::ExpectTensorEqual<float>(
      *GetOutput(1),
      test::AsTensor<float>({0.95f, 0.9f, 0.3f}, TensorShape({1, 3})));
  test::ExpectTensorEqual<float>(
      *GetOutput(2), test::AsTensor<float>({0, 0, 0}, TensorShape({1, 3})));
  test::ExpectTensorEqual<int32_t>(*GetOutput(3), test::AsTensor<int32_t>({3}));
  // clip_boxes clips every coordinate to [0, 1].
  Make(false, true);
  AddInputs(TensorShape({1, 6, 1, 4}), kBoxes, TensorShape({1, 6, 1}), kScores,
            3, 3, 0.5f, 0.0f);
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(
      *GetOutput(0), test::AsTensor<float>({0, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1, 1},
                                           TensorShape({1, 3, 4})));
}

TEST_F(CombinedNonMaxSuppressionOpTest, ClassesBatchesAndPadding) {
  // Two images, two classes with their own boxes (q = 2), three anchors.
  // Image 0: class 0 scores .9 .8 .1 (anchors 0 and 1 overlap), class 1
  // scores .2 .7 .6. Image 1: everything below the threshold but one.
  std::vector<float> boxes;
  for (int b = 0; b < 2; ++b) {
    for (int a = 0; a < 3; ++a) {
      for (int c = 0; c < 2; ++c) {
        const float y = a == 1 ? 0.05f : a * 1.0f;  // anchor 1 overlaps 0
        boxes.insert(boxes.end(), {y, c * 5.0f, y + 1, c * 5.0f + 1});
      }
    }
  }
  const std::vector<float> scores = {.9f,  .2f,  .8f,  .7f,  .1f, .6f,
                                     .05f, .05f, .05f, .35f, 0,   0};
  Make(false, false);
  AddInputs(TensorShape({2, 3, 2, 4}), boxes, TensorShape({2, 3, 2}), scores, 2,
            5, 0.5f, 0.3f);
  RunAndCheckShapes();
  // Image 0: class 0 keeps anchor 0 (.9); class 1 keeps anchors 1 (.7) and
  // 2 (.6). Image 1: class 1 anchor 1 (.35).
  test::ExpectNearReference<float>(*GetOutput(1), TensorShape({2, 5}),
                                   {.9, .7, .6, 0, 0, .35, 0, 0, 0, 0}, 1e-7);
  test::ExpectNearReference<float>(*GetOutput(2), TensorShape({2, 5}),
                                   {0, 1, 1, 0, 0, 1, 0, 0, 0, 0}, 0);
  test::ExpectNearReference<float>(
      *GetOutput(0), TensorShape({2, 5, 4}),
      {0, 0, 1, 1, 0.05f, 5, 1.05f, 6, 2,     5, 3, 6, 0, 0,
       0, 0, 0, 0, 0,     0, 0.05f, 5, 1.05f, 6, 0, 0, 0, 0,
       0, 0, 0, 0, 0,     0, 0,     0, 0,     0, 0, 0},
      1e-7);
  test::ExpectTensorEqual<int32_t>(*GetOutput(3),
                                   test::AsTensor<int32_t>({3, 1}));
  // pad_per_class: min(max_total_size 5, 1 per class * 2 classes) = 2.
  Make(true, true);
  AddInputs(TensorShape({2, 3, 2, 4}), boxes, TensorShape({2, 3, 2}), scores, 1,
            5, 0.5f, 0.3f);
  RunAndCheckShapes();
  test::ExpectNearReference<float>(*GetOutput(1), TensorShape({2, 2}),
                                   {.9, .7, .35, 0}, 1e-7);
  test::ExpectTensorEqual<int32_t>(*GetOutput(3),
                                   test::AsTensor<int32_t>({2, 1}));
}

TEST_F(CombinedNonMaxSuppressionOpTest, SharedBoxesAndEmptyBatch) {
  // q = 1: every class reads the same boxes.
  Make(false, false);
  AddInputs(TensorShape({1, 2, 1, 4}), {0, 0, 1, 1, 0, 0, 1, 1},
            TensorShape({1, 2, 2}), {.9f, .1f, .2f, .8f}, 2, 4, 0.5f, 0.0f);
  RunAndCheckShapes();
  test::ExpectNearReference<float>(*GetOutput(1), TensorShape({1, 4}),
                                   {.9, .8, 0, 0}, 1e-7);
  test::ExpectNearReference<float>(*GetOutput(2), TensorShape({1, 4}),
                                   {0, 1, 0, 0}, 0);
  Make(false, true);
  AddInputs(TensorShape({0, 2, 1, 4}), {}, TensorShape({0, 2, 3}), {}, 2, 4,
            0.5f, 0.0f);
  RunAndCheckShapes();
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({0, 4, 4}));
}

TEST_F(CombinedNonMaxSuppressionOpTest, RejectsBadInput) {
  const auto run = [&](const TensorShape& boxes, const TensorShape& scores,
                       int32_t per_class, int32_t total, float iou,
                       const TensorShape& thr = TensorShape({})) {
    Make(false, true);
    AddInputTensor(test::MakeTestTensor(DT_FLOAT, boxes));
    AddInputTensor(test::MakeTestTensor(DT_FLOAT, scores));
    AddInputFromArray<int32_t>(TensorShape({}), {per_class});
    AddInputFromArray<int32_t>(TensorShape({}), {total});
    AddInputFromArray<float>(TensorShape({}), {iou});
    AddInputFromArray<float>(thr, std::vector<float>(thr.num_elements(), 0));
    return RunOpKernel();
  };
  const auto invalid = [](const char* s) {
    return StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(s));
  };
  const TensorShape b({1, 3, 1, 4}), s({1, 3, 2});
  EXPECT_THAT(run(TensorShape({3, 1, 4}), s, 2, 2, 0.5f),
              invalid("boxes must be 4-D"));
  EXPECT_THAT(run(b, TensorShape({3, 2}), 2, 2, 0.5f),
              invalid("scores must be 3-D"));
  EXPECT_THAT(run(b, TensorShape({2, 3, 2}), 2, 2, 0.5f),
              invalid("boxes and scores must have same batch size"));
  EXPECT_THAT(run(b, s, 0, 2, 0.5f),
              invalid("max_size_per_class must be positive"));
  EXPECT_THAT(run(b, s, 2, 0, 0.5f), invalid("max_total_size must be > 0"));
  EXPECT_THAT(run(b, s, 2, 2, -0.5f),
              invalid("iou_threshold must be in [0, 1]"));
  EXPECT_THAT(run(b, s, 2, 2, 0.5f, TensorShape({1})),
              invalid("score_threshold must be 0-D, got shape [1]"));
  EXPECT_THAT(run(TensorShape({1, 3, 3, 4}), s, 2, 2, 0.5f),
              invalid("third dim of boxes must be either 1 or num classes"));
  EXPECT_THAT(run(TensorShape({1, 3, 1, 3}), s, 2, 2, 0.5f),
              invalid("boxes must have 4 columns"));
  EXPECT_THAT(run(b, TensorShape({1, 4, 2}), 2, 2, 0.5f),
              invalid("scores has incompatible shape"));
  // Scalars given as vectors.
  Make(false, true);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, b));
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, s));
  AddInputFromArray<int32_t>(TensorShape({1}), {2});
  AddInputFromArray<int32_t>(TensorShape({}), {2});
  AddInputFromArray<float>(TensorShape({}), {0.5f});
  AddInputFromArray<float>(TensorShape({}), {0.0f});
  ExpectInvalid("max_size_per_class must be 0-D, got shape [1]");
  Make(false, true);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, b));
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, s));
  AddInputFromArray<int32_t>(TensorShape({}), {2});
  AddInputFromArray<int32_t>(TensorShape({1}), {2});
  AddInputFromArray<float>(TensorShape({}), {0.5f});
  AddInputFromArray<float>(TensorShape({}), {0.0f});
  ExpectInvalid("max_total_size must be 0-D, got shape [1]");
  Make(false, true);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, b));
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, s));
  AddInputFromArray<int32_t>(TensorShape({}), {2});
  AddInputFromArray<int32_t>(TensorShape({}), {2});
  AddInputFromArray<float>(TensorShape({1}), {0.5f});
  AddInputFromArray<float>(TensorShape({}), {0.0f});
  ExpectInvalid("iou_threshold must be 0-D, got shape [1]");
}

}  // namespace
}  // namespace minflow
