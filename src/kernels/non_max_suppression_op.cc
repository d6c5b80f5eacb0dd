// Non-max suppression on CPU: NonMaxSuppressionV3 and V4 (greedy, by IOU),
// V5 (optionally soft: Gaussian score decay with soft_nms_sigma) and
// CombinedNonMaxSuppression (per batch and class, then the best overall).
//
// Greedy selection follows TensorFlow's algorithm exactly: candidates
// above score_threshold leave a max-heap by score (ties: the lower box
// index first); each is compared with the boxes selected since it was last
// examined, newest first; a hard overlap (IOU > iou_threshold, hard NMS
// only) drops it, a soft decay re-queues it while its score stays above the
// threshold. Scores and IOUs are computed in float for half inputs too.
// CombinedNonMaxSuppression breaks score ties by the lower box index within
// a class and by the lower class across classes, where TensorFlow leaves
// the order to its heap and an unstable sort.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <queue>
#include <vector>

#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"

namespace minflow {
namespace {

// A box with its corners ordered (TensorFlow takes either corner order).
struct Box {
  float ymin, xmin, ymax, xmax, area;
};

template <typename T>
Box MakeBox(const T* b) {
  const float y0 = static_cast<float>(b[0]), x0 = static_cast<float>(b[1]);
  const float y1 = static_cast<float>(b[2]), x1 = static_cast<float>(b[3]);
  Box r{std::min(y0, y1), std::min(x0, x1), std::max(y0, y1), std::max(x0, x1),
        0};
  r.area = (r.ymax - r.ymin) * (r.xmax - r.xmin);
  return r;
}

// Intersection over union; 0 when either box has no area.
float IOU(const Box& a, const Box& b) {
  if (a.area <= 0 || b.area <= 0) return 0.0f;
  const float ih = std::min(a.ymax, b.ymax) - std::max(a.ymin, b.ymin);
  const float iw = std::min(a.xmax, b.xmax) - std::max(a.xmin, b.xmin);
  const float inter = std::max(ih, 0.0f) * std::max(iw, 0.0f);
  return inter / (a.area + b.area - inter);
}

struct Candidate {
  int64_t index;
  float score;
  int64_t suppress_begin;  // selected[0, suppress_begin) already applied
};

// Orders the heap: highest score on top, then the lowest index.
struct CandidateLess {
  bool operator()(const Candidate& a, const Candidate& b) const {
    return a.score < b.score || (a.score == b.score && a.index > b.index);
  }
};

// TensorFlow's greedy (soft) NMS over `boxes` with `scores`: the indices
// of up to `max_output` selections in order, and their (decayed) scores.
// sigma <= 0 is hard NMS.
void GreedyNMS(const std::vector<Box>& boxes, const std::vector<float>& scores,
               int64_t max_output, float iou_threshold, float score_threshold,
               float sigma, std::vector<int64_t>* selected,
               std::vector<float>* selected_scores) {
  std::priority_queue<Candidate, std::vector<Candidate>, CandidateLess> heap;
  for (size_t i = 0; i < scores.size(); ++i) {
    if (scores[i] > score_threshold) {
      heap.push({static_cast<int64_t>(i), scores[i], 0});
    }
  }
  const bool soft = sigma > 0;
  const float scale = soft ? -0.5f / sigma : 0.0f;
  while (static_cast<int64_t>(selected->size()) < max_output && !heap.empty()) {
    Candidate next = heap.top();
    heap.pop();
    const float original = next.score;
    bool hard_suppressed = false;
    for (int64_t j = static_cast<int64_t>(selected->size()) - 1;
         j >= next.suppress_begin; --j) {
      const float iou = IOU(boxes[next.index], boxes[(*selected)[j]]);
      if (!soft && iou > iou_threshold) {
        hard_suppressed = true;
        break;
      }
      if (soft) next.score *= std::exp(scale * iou * iou);
      if (next.score <= score_threshold) break;
    }
    next.suppress_begin = static_cast<int64_t>(selected->size());
    if (hard_suppressed) continue;
    if (next.score == original) {
      selected->push_back(next.index);
      selected_scores->push_back(next.score);
    } else if (next.score > score_threshold) {
      heap.push(next);
    }
  }
}

float ScalarAsFloat(const Tensor& t) {
  return t.dtype() == DT_HALF ? static_cast<float>(t.base<const half>()[0])
                              : t.base<const float>()[0];
}

// The checks every NonMaxSuppressionV* shares, in TensorFlow's words.
Status CheckScalar(const Tensor& t, const char* name) {
  if (t.dims() != 0) {
    return errors::InvalidArgument(name, " must be 0-D, got shape ",
                                   t.shape().DebugString());
  }
  return OkStatus();
}

Status CheckBoxesAndScores(const Tensor& boxes, const Tensor& scores) {
  if (boxes.dims() != 2) {
    return errors::InvalidArgument("boxes must be 2-D",
                                   boxes.shape().DebugString());
  }
  if (boxes.dim_size(1) != 4) {
    return errors::InvalidArgument("boxes must have 4 columns");
  }
  if (scores.dims() != 1) {
    return errors::InvalidArgument(
        "scores must be 1-D", scores.shape().DebugString(),
        " (Shape must be rank 1 but is rank ", scores.dims(), ")");
  }
  if (scores.dim_size(0) != boxes.dim_size(0)) {
    return errors::InvalidArgument(
        "scores has incompatible shape (Dimensions must be equal, but are ",
        boxes.dim_size(0), " and ", scores.dim_size(0), ")");
  }
  return OkStatus();
}

// kVersion 3, 4 or 5: the outputs and inputs of NonMaxSuppressionV<n>.
template <typename T, int kVersion>
class NonMaxSuppressionOp : public OpKernel {
 public:
  explicit NonMaxSuppressionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (kVersion >= 4) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("pad_to_max_output_size", &pad_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& boxes = ctx->input(0);
    const Tensor& scores = ctx->input(1);
    const Tensor& max_output_size = ctx->input(2);
    const Tensor& iou_threshold = ctx->input(3);
    const Tensor& score_threshold = ctx->input(4);
    OP_REQUIRES_OK(ctx, CheckScalar(max_output_size, "max_output_size"));
    OP_REQUIRES_OK(ctx, CheckScalar(iou_threshold, "iou_threshold"));
    const float iou = ScalarAsFloat(iou_threshold);
    OP_REQUIRES(ctx, iou >= 0.0f && iou <= 1.0f,
                errors::InvalidArgument("iou_threshold must be in [0, 1]"));
    OP_REQUIRES_OK(ctx, CheckScalar(score_threshold, "score_threshold"));
    const float score_min = ScalarAsFloat(score_threshold);
    float sigma = 0;
    if (kVersion == 5) {
      const Tensor& soft_nms_sigma = ctx->input(5);
      OP_REQUIRES_OK(ctx, CheckScalar(soft_nms_sigma, "soft_nms_sigma"));
      sigma = ScalarAsFloat(soft_nms_sigma);
      OP_REQUIRES(ctx, sigma >= 0.0f,
                  errors::InvalidArgument("soft_nms_sigma_val must be >= 0"));
    }
    OP_REQUIRES_OK(ctx, CheckBoxesAndScores(boxes, scores));
    const int64_t max_output = max_output_size.base<const int32_t>()[0];
    OP_REQUIRES(ctx, max_output >= 0,
                errors::InvalidArgument(
                    "output size must be non-negative, but got ", max_output));

    const int64_t n = boxes.dim_size(0);
    std::vector<Box> box_list(n);
    std::vector<float> score_list(n);
    const T* b = boxes.base<const T>();
    const T* s = scores.base<const T>();
    for (int64_t i = 0; i < n; ++i) {
      box_list[i] = MakeBox(b + 4 * i);
      score_list[i] = static_cast<float>(s[i]);
    }
    std::vector<int64_t> selected;
    std::vector<float> selected_scores;
    GreedyNMS(box_list, score_list, max_output, iou, score_min, sigma,
              &selected, &selected_scores);
    const int64_t valid = static_cast<int64_t>(selected.size());
    const int64_t length = pad_ ? max_output : valid;

    Tensor* indices = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, TensorShape({length}), &indices));
    int32_t* out = indices->base<int32_t>();
    for (int64_t i = 0; i < length; ++i) {
      out[i] = i < valid ? static_cast<int32_t>(selected[i]) : 0;
    }
    int next_output = 1;
    if (kVersion == 5) {
      Tensor* out_scores = nullptr;
      OP_REQUIRES_OK(
          ctx, ctx->allocate_output(1, TensorShape({length}), &out_scores));
      T* os = out_scores->base<T>();
      for (int64_t i = 0; i < length; ++i) {
        os[i] = i < valid ? static_cast<T>(selected_scores[i]) : T(0);
      }
      next_output = 2;
    }
    if (kVersion >= 4) {
      Tensor* valid_t = nullptr;
      OP_REQUIRES_OK(
          ctx, ctx->allocate_output(next_output, TensorShape({}), &valid_t));
      valid_t->base<int32_t>()[0] = static_cast<int32_t>(valid);
    }
  }

 private:
  bool pad_ = false;
};

// One class's selection in CombinedNonMaxSuppression.
struct Detection {
  float score;
  int64_t box;
  int64_t cls;
  const float* coords;
};

class CombinedNonMaxSuppressionOp : public OpKernel {
 public:
  explicit CombinedNonMaxSuppressionOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("pad_per_class", &pad_per_class_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("clip_boxes", &clip_boxes_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& boxes = ctx->input(0);
    const Tensor& scores = ctx->input(1);
    OP_REQUIRES(ctx, boxes.dims() == 4,
                errors::InvalidArgument("boxes must be 4-D",
                                        boxes.shape().DebugString()));
    OP_REQUIRES(ctx, scores.dims() == 3,
                errors::InvalidArgument("scores must be 3-D",
                                        scores.shape().DebugString()));
    OP_REQUIRES(
        ctx, boxes.dim_size(0) == scores.dim_size(0),
        errors::InvalidArgument("boxes and scores must have same batch size"));
    const Tensor& per_class_t = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckScalar(per_class_t, "max_size_per_class"));
    const int64_t max_per_class = per_class_t.base<const int32_t>()[0];
    OP_REQUIRES(
        ctx, max_per_class > 0,
        errors::InvalidArgument("max_size_per_class must be positive, but got ",
                                max_per_class));
    const Tensor& total_t = ctx->input(3);
    OP_REQUIRES_OK(ctx, CheckScalar(total_t, "max_total_size"));
    const int64_t max_total = total_t.base<const int32_t>()[0];
    OP_REQUIRES(ctx, max_total > 0,
                errors::InvalidArgument("max_total_size must be > 0, but got ",
                                        max_total));
    OP_REQUIRES_OK(ctx, CheckScalar(ctx->input(4), "iou_threshold"));
    const float iou = ctx->input(4).base<const float>()[0];
    OP_REQUIRES_OK(ctx, CheckScalar(ctx->input(5), "score_threshold"));
    const float score_min = ctx->input(5).base<const float>()[0];
    OP_REQUIRES(ctx, iou >= 0.0f && iou <= 1.0f,
                errors::InvalidArgument("iou_threshold must be in [0, 1]"));
    const int64_t batch = boxes.dim_size(0);
    const int64_t anchors = boxes.dim_size(1);
    const int64_t q = boxes.dim_size(2);
    const int64_t classes = scores.dim_size(2);
    OP_REQUIRES(ctx, q == 1 || q == classes,
                errors::InvalidArgument(
                    "third dim of boxes must be either 1 or num classes"));
    OP_REQUIRES(ctx, boxes.dim_size(3) == 4,
                errors::InvalidArgument("boxes must have 4 columns"));
    OP_REQUIRES(ctx, scores.dim_size(1) == anchors,
                errors::InvalidArgument("scores has incompatible shape"));

    // Both limits are below 2^31, so their product fits.
    const int64_t per_batch = pad_per_class_
                                  ? std::min(max_total, max_per_class * classes)
                                  : max_total;
    TensorShape boxes_shape;
    TensorShape scores_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape({batch, per_batch, 4},
                                                      &boxes_shape));
    OP_REQUIRES_OK(
        ctx, TensorShape::BuildTensorShape({batch, per_batch}, &scores_shape));
    Tensor* out_boxes = nullptr;
    Tensor* out_scores = nullptr;
    Tensor* out_classes = nullptr;
    Tensor* out_valid = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, boxes_shape, &out_boxes));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, scores_shape, &out_scores));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, scores_shape, &out_classes));
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(3, TensorShape({batch}), &out_valid));
    const int64_t per_class = std::min(max_per_class, anchors);
    const float* box_data = boxes.base<const float>();
    const float* score_data = scores.base<const float>();
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    Shard(workers->num_threads, workers->workers, batch,
          anchors * classes * 50 + 1, [&](int64_t b0, int64_t b1) {
            for (int64_t b = b0; b < b1; ++b) {
              Batch(box_data + b * anchors * q * 4,
                    score_data + b * anchors * classes, anchors, q, classes,
                    per_class, per_batch, iou, score_min,
                    out_boxes->base<float>() + b * per_batch * 4,
                    out_scores->base<float>() + b * per_batch,
                    out_classes->base<float>() + b * per_batch,
                    out_valid->base<int32_t>() + b);
            }
          });
  }

 private:
  void Batch(const float* boxes, const float* scores, int64_t anchors,
             int64_t q, int64_t classes, int64_t per_class, int64_t per_batch,
             float iou, float score_min, float* out_boxes, float* out_scores,
             float* out_classes, int32_t* valid) const {
    std::vector<Detection> detections;
    std::vector<Box> class_boxes(anchors);
    std::vector<float> class_scores(anchors);
    std::vector<int64_t> selected;
    std::vector<float> selected_scores;
    for (int64_t c = 0; c < classes; ++c) {
      const int64_t box_col = q > 1 ? c : 0;
      for (int64_t a = 0; a < anchors; ++a) {
        class_boxes[a] = MakeBox(boxes + (a * q + box_col) * 4);
        class_scores[a] = scores[a * classes + c];
      }
      selected.clear();
      selected_scores.clear();
      GreedyNMS(class_boxes, class_scores, per_class, iou, score_min,
                /*sigma=*/0, &selected, &selected_scores);
      for (size_t i = 0; i < selected.size(); ++i) {
        detections.push_back({selected_scores[i], selected[i], c,
                              boxes + (selected[i] * q + box_col) * 4});
      }
    }
    std::stable_sort(detections.begin(), detections.end(),
                     [](const Detection& x, const Detection& y) {
                       return x.score > y.score;
                     });
    const int64_t count =
        std::min(static_cast<int64_t>(detections.size()), per_batch);
    *valid = static_cast<int32_t>(count);
    for (int64_t i = 0; i < per_batch; ++i) {
      if (i >= count) {
        for (int k = 0; k < 4; ++k) out_boxes[4 * i + k] = 0;
        out_scores[i] = 0;
        out_classes[i] = 0;
        continue;
      }
      const Detection& d = detections[i];
      for (int k = 0; k < 4; ++k) {
        const float v = d.coords[k];
        out_boxes[4 * i + k] =
            clip_boxes_ ? std::max(std::min(v, 1.0f), 0.0f) : v;
      }
      out_scores[i] = d.score;
      out_classes[i] = static_cast<float>(d.cls);
    }
  }

  bool pad_per_class_ = false;
  bool clip_boxes_ = true;
};

#define REGISTER_CPU(T)                                       \
  REGISTER_KERNEL_BUILDER(Name("NonMaxSuppressionV3")         \
                              .Device(DEVICE_CPU)             \
                              .TypeConstraint<T>("T")         \
                              .HostMemory("max_output_size"), \
                          NonMaxSuppressionOp<T, 3>);         \
  REGISTER_KERNEL_BUILDER(Name("NonMaxSuppressionV4")         \
                              .Device(DEVICE_CPU)             \
                              .TypeConstraint<T>("T")         \
                              .HostMemory("max_output_size"), \
                          NonMaxSuppressionOp<T, 4>);         \
  REGISTER_KERNEL_BUILDER(Name("NonMaxSuppressionV5")         \
                              .Device(DEVICE_CPU)             \
                              .TypeConstraint<T>("T")         \
                              .HostMemory("max_output_size"), \
                          NonMaxSuppressionOp<T, 5>);
TF_CALL_float(REGISTER_CPU) TF_CALL_half(REGISTER_CPU)
#undef REGISTER_CPU

    REGISTER_KERNEL_BUILDER(
        Name("CombinedNonMaxSuppression").Device(DEVICE_CPU),
        CombinedNonMaxSuppressionOp);

}  // namespace
}  // namespace minflow
