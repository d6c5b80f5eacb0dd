// oneDNN's convolution primitive for Conv2D, found in the library that
// cpu_gemm.cc loads. See Note [CPU convolution library] in
// cpu_conv_library.h.
#include "src/kernels/cpu_conv_library.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "minflow/core/logging.h"
#include "minflow/core/work_sharder.h"
#include "src/kernels/cpu_gemm.h"

namespace minflow {
namespace internal {
namespace {

// oneDNN 2.x's C API (oneapi/dnnl/dnnl.h), declared here so that building
// minflow needs no oneDNN headers; used only when the loaded library says
// it is version 2. Its descriptors are plain structs that the caller
// allocates (696 and 5976 bytes in 2.6); these buffers are larger, and the
// library reads and writes only its own size of them.
using Handle = void*;
constexpr int kMaxDims = 12;
using Dims = int64_t[kMaxDims];
struct alignas(8) MemoryDesc {
  unsigned char bytes[2048] = {};
};
struct alignas(8) ConvolutionDesc {
  unsigned char bytes[16384] = {};
};
struct ExecArg {
  int arg;
  Handle memory;
};
struct Version {
  int major, minor, patch;
  const char* hash;
  unsigned cpu_runtime, gpu_runtime;
};

// oneDNN 2.x enumerators and execution argument indices.
constexpr int kSuccess = 0;
constexpr int kF32 = 3;
constexpr int kFormatAny = 1;
constexpr int kNhwc = 20;
constexpr int kHwio = 30;
constexpr int kCpuEngine = 1;
constexpr unsigned kInOrderStream = 1;
constexpr int kForwardInference = 96;
constexpr int kConvolutionDirect = 1;
constexpr int kQueryWeightsMd = 131;
constexpr int kQueryScratchpadMd = 136;
constexpr int kScratchpadModeUser = 1;
constexpr int kArgSrc = 1;
constexpr int kArgDst = 17;
constexpr int kArgWeights = 33;
constexpr int kArgScratchpad = 80;
constexpr int kArgBias = 41;
constexpr int kFormatA = 2;  // a plain 1-D tensor
constexpr int kEltwiseRelu = 0x1f;
constexpr int kEltwiseClip = 0xff;

struct Api {
  const Version* (*version)() = nullptr;
  int (*engine_create)(Handle*, int, size_t) = nullptr;
  int (*stream_create)(Handle*, Handle, unsigned) = nullptr;
  int (*stream_destroy)(Handle) = nullptr;
  int (*memory_desc_init_by_tag)(MemoryDesc*, int, const int64_t*, int,
                                 int) = nullptr;
  int (*convolution_desc_init)(ConvolutionDesc*, int, int, const MemoryDesc*,
                               const MemoryDesc*, const MemoryDesc*,
                               const MemoryDesc*, const int64_t*,
                               const int64_t*, const int64_t*,
                               const int64_t*) = nullptr;
  int (*attr_create)(Handle*) = nullptr;
  int (*attr_destroy)(Handle) = nullptr;
  int (*attr_set_scratchpad_mode)(Handle, int) = nullptr;
  int (*attr_set_post_ops)(Handle, Handle) = nullptr;
  int (*post_ops_create)(Handle*) = nullptr;
  int (*post_ops_destroy)(Handle) = nullptr;
  int (*post_ops_append_eltwise)(Handle, float, int, float, float) = nullptr;
  int (*primitive_desc_create)(Handle*, const void*, Handle, Handle,
                               Handle) = nullptr;
  const MemoryDesc* (*primitive_desc_query_md)(Handle, int, int) = nullptr;
  int (*reorder_primitive_desc_create)(Handle*, const MemoryDesc*, Handle,
                                       const MemoryDesc*, Handle,
                                       Handle) = nullptr;
  int (*primitive_desc_destroy)(Handle) = nullptr;
  int (*primitive_create)(Handle*, Handle) = nullptr;
  int (*primitive_execute)(Handle, Handle, int, const ExecArg*) = nullptr;
  size_t (*memory_desc_get_size)(const MemoryDesc*) = nullptr;
  int (*memory_desc_equal)(const MemoryDesc*, const MemoryDesc*) = nullptr;
  int (*memory_create)(Handle*, const MemoryDesc*, Handle, void*) = nullptr;
  int (*memory_destroy)(Handle) = nullptr;
  Handle engine = nullptr;
};

// The API, or null when the library is not loaded or is not oneDNN 2.
const Api* LoadApi() {
  static const Api* const api = []() -> const Api* {
    void* handle = GemmLibraryHandle();
    if (handle == nullptr) return nullptr;
    auto api = std::make_unique<Api>();
    bool found = true;
    auto find = [&](auto* fn, const char* name) {
      *fn = reinterpret_cast<std::remove_pointer_t<decltype(fn)>>(
          dlsym(handle, name));
      found = found && *fn != nullptr;
    };
    find(&api->version, "dnnl_version");
    find(&api->engine_create, "dnnl_engine_create");
    find(&api->stream_create, "dnnl_stream_create");
    find(&api->stream_destroy, "dnnl_stream_destroy");
    find(&api->memory_desc_init_by_tag, "dnnl_memory_desc_init_by_tag");
    find(&api->convolution_desc_init,
         "dnnl_dilated_convolution_forward_desc_init");
    find(&api->attr_create, "dnnl_primitive_attr_create");
    find(&api->attr_destroy, "dnnl_primitive_attr_destroy");
    find(&api->attr_set_scratchpad_mode,
         "dnnl_primitive_attr_set_scratchpad_mode");
    find(&api->attr_set_post_ops, "dnnl_primitive_attr_set_post_ops");
    find(&api->post_ops_create, "dnnl_post_ops_create");
    find(&api->post_ops_destroy, "dnnl_post_ops_destroy");
    find(&api->post_ops_append_eltwise, "dnnl_post_ops_append_eltwise");
    find(&api->primitive_desc_create, "dnnl_primitive_desc_create");
    find(&api->primitive_desc_query_md, "dnnl_primitive_desc_query_md");
    find(&api->reorder_primitive_desc_create,
         "dnnl_reorder_primitive_desc_create");
    find(&api->primitive_desc_destroy, "dnnl_primitive_desc_destroy");
    find(&api->primitive_create, "dnnl_primitive_create");
    find(&api->primitive_execute, "dnnl_primitive_execute");
    find(&api->memory_desc_get_size, "dnnl_memory_desc_get_size");
    find(&api->memory_desc_equal, "dnnl_memory_desc_equal");
    find(&api->memory_create, "dnnl_memory_create");
    find(&api->memory_destroy, "dnnl_memory_destroy");
    if (!found || api->version()->major != 2) {
      MF_LOG(WARNING) << "libdnnl.so.2 is not oneDNN 2 or lacks its "
                         "convolution API: Conv2D uses im2col and the GEMM";
      return nullptr;
    }
    KeepLibraryOnThisThread();
    if (api->engine_create(&api->engine, kCpuEngine, 0) != kSuccess) {
      MF_LOG(WARNING) << "oneDNN could not create a CPU engine: Conv2D uses "
                         "im2col and the GEMM";
      return nullptr;
    }
    return api.release();
  }();
  return api;
}

// One convolution the primitive runs: a slice of output rows of one image
// and the input rows it reads, with the padding that remains at its edges.
struct SliceGeometry {
  int64_t in_rows, in_cols, in_depth, out_rows, out_cols, out_depth;
  int64_t filter_rows, filter_cols, stride_rows, stride_cols;
  int64_t dilation_rows, dilation_cols;
  int64_t pad_top, pad_bottom, pad_left, pad_right;
  bool bias;
  LibraryActivation activation;

  auto Tie() const {
    return std::tie(in_rows, in_cols, in_depth, out_rows, out_cols, out_depth,
                    filter_rows, filter_cols, stride_rows, stride_cols,
                    dilation_rows, dilation_cols, pad_top, pad_bottom, pad_left,
                    pad_right, bias, activation);
  }
  bool operator==(const SliceGeometry& other) const {
    return Tie() == other.Tie();
  }
  template <typename H>
  friend H AbslHashValue(H h, const SliceGeometry& g) {
    return H::combine(std::move(h), g.Tie());
  }
};

// A created primitive with its descriptors and the reorder from an HWIO
// filter into its weights layout. Immutable once made; oneDNN primitives
// may run on several threads at once when each has its own scratchpad.
struct ConvPrimitive {
  MemoryDesc src, dst, filter, bias;
  Handle primitive_desc = nullptr;  // owns the two descriptors below
  const MemoryDesc* weights = nullptr;
  const MemoryDesc* scratchpad = nullptr;
  size_t weights_bytes = 0;
  size_t scratchpad_bytes = 0;
  Handle primitive = nullptr;
  Handle reorder = nullptr;
};

// Null when oneDNN declines the geometry (no implementation, or dims it
// rejects).
std::unique_ptr<ConvPrimitive> CreatePrimitive(const Api& api,
                                               const SliceGeometry& g) {
  auto p = std::make_unique<ConvPrimitive>();
  const Dims src = {1, g.in_depth, g.in_rows, g.in_cols};
  const Dims dst = {1, g.out_depth, g.out_rows, g.out_cols};
  const Dims weights = {g.out_depth, g.in_depth, g.filter_rows, g.filter_cols};
  const Dims bias = {g.out_depth};
  const Dims strides = {g.stride_rows, g.stride_cols};
  // oneDNN counts the gaps a dilation inserts: 0 is a dense filter.
  const Dims dilates = {g.dilation_rows - 1, g.dilation_cols - 1};
  const Dims pad_before = {g.pad_top, g.pad_left};
  const Dims pad_after = {g.pad_bottom, g.pad_right};
  MemoryDesc any_weights;
  ConvolutionDesc desc;
  if (api.memory_desc_init_by_tag(&p->src, 4, src, kF32, kNhwc) != kSuccess ||
      api.memory_desc_init_by_tag(&p->dst, 4, dst, kF32, kNhwc) != kSuccess ||
      api.memory_desc_init_by_tag(&p->filter, 4, weights, kF32, kHwio) !=
          kSuccess ||
      api.memory_desc_init_by_tag(&any_weights, 4, weights, kF32, kFormatAny) !=
          kSuccess ||
      (g.bias && api.memory_desc_init_by_tag(&p->bias, 1, bias, kF32,
                                             kFormatA) != kSuccess) ||
      api.convolution_desc_init(&desc, kForwardInference, kConvolutionDirect,
                                &p->src, &any_weights,
                                g.bias ? &p->bias : nullptr, &p->dst, strides,
                                dilates, pad_before, pad_after) != kSuccess) {
    return nullptr;
  }
  Handle attr = nullptr;
  if (api.attr_create(&attr) != kSuccess) return nullptr;
  // Each call brings its own scratchpad, so that slices can run at once.
  int made = api.attr_set_scratchpad_mode(attr, kScratchpadModeUser);
  if (made == kSuccess && g.activation != LibraryActivation::kNone) {
    // Relu is max(x, 0) (alpha, the slope below 0, is 0); Relu6 clips to
    // [alpha, beta] = [0, 6].
    Handle post_ops = nullptr;
    made = api.post_ops_create(&post_ops);
    if (made == kSuccess) {
      made = g.activation == LibraryActivation::kRelu
                 ? api.post_ops_append_eltwise(post_ops, 1.0f, kEltwiseRelu,
                                               0.0f, 0.0f)
                 : api.post_ops_append_eltwise(post_ops, 1.0f, kEltwiseClip,
                                               0.0f, 6.0f);
      if (made == kSuccess) made = api.attr_set_post_ops(attr, post_ops);
      api.post_ops_destroy(post_ops);
    }
  }
  if (made == kSuccess) {
    made = api.primitive_desc_create(&p->primitive_desc, &desc, attr,
                                     api.engine, nullptr);
  }
  api.attr_destroy(attr);
  if (made != kSuccess) return nullptr;
  p->weights =
      api.primitive_desc_query_md(p->primitive_desc, kQueryWeightsMd, 0);
  p->scratchpad =
      api.primitive_desc_query_md(p->primitive_desc, kQueryScratchpadMd, 0);
  Handle reorder_desc = nullptr;
  if (p->weights == nullptr || p->scratchpad == nullptr ||
      api.primitive_create(&p->primitive, p->primitive_desc) != kSuccess ||
      api.reorder_primitive_desc_create(&reorder_desc, &p->filter, api.engine,
                                        p->weights, api.engine,
                                        nullptr) != kSuccess) {
    return nullptr;
  }
  made = api.primitive_create(&p->reorder, reorder_desc);
  api.primitive_desc_destroy(reorder_desc);
  if (made != kSuccess) return nullptr;
  p->weights_bytes = api.memory_desc_get_size(p->weights);
  p->scratchpad_bytes = api.memory_desc_get_size(p->scratchpad);
  return p;
}

// Primitives by geometry, for the life of the process (a declined geometry
// is remembered as null). A model has a few convolution shapes; past
// kMaxPrimitives geometries (shapes that keep changing) new ones are
// declined, which bounds the memory.
constexpr size_t kMaxPrimitives = 512;

const ConvPrimitive* FindPrimitive(const Api& api, const SliceGeometry& g) {
  static absl::Mutex mu;
  // Guarded by mu.
  static auto* const cache =
      new absl::flat_hash_map<SliceGeometry, std::unique_ptr<ConvPrimitive>>;
  absl::MutexLock lock(&mu);
  auto it = cache->find(g);
  if (it != cache->end()) return it->second.get();
  if (cache->size() >= kMaxPrimitives) return nullptr;
  // Created on this thread, whose OpenMP team is one thread: oneDNN sizes
  // its blocking for the threads it expects.
  KeepLibraryOnThisThread();
  return cache->emplace(g, CreatePrimitive(api, g)).first->second.get();
}

// The calling thread's oneDNN stream, made on first use.
Handle ThisThreadStream(const Api& api) {
  struct Stream {
    Handle handle = nullptr;
    ~Stream() {
      if (handle != nullptr) LoadApi()->stream_destroy(handle);
    }
  };
  thread_local Stream stream;
  if (stream.handle == nullptr &&
      api.stream_create(&stream.handle, api.engine, kInOrderStream) !=
          kSuccess) {
    stream.handle = nullptr;
  }
  return stream.handle;
}

// Runs `primitive` on memories wrapping `buffers` (argument index, data,
// descriptor); false when oneDNN refuses.
bool Execute(
    const Api& api, Handle primitive,
    std::initializer_list<std::tuple<int, void*, const MemoryDesc*>> buffers) {
  Handle stream = ThisThreadStream(api);
  if (stream == nullptr) return false;
  ExecArg args[5];
  int count = 0;
  bool ok = true;
  for (const auto& [arg, data, desc] : buffers) {
    if (data == nullptr) continue;  // no bias, or an empty scratchpad
    Handle memory = nullptr;
    if (api.memory_create(&memory, desc, api.engine, data) != kSuccess) {
      ok = false;
      break;
    }
    args[count++] = ExecArg{arg, memory};
  }
  ok = ok && api.primitive_execute(primitive, stream, count, args) == kSuccess;
  for (int i = 0; i < count; ++i) api.memory_destroy(args[i].memory);
  return ok;
}

}  // namespace

Status LibraryConv2D(OpKernelContext* ctx, const Conv2DDimensions& d,
                     const float* input, const float* filter,
                     const LibraryConvEpilogue& fused, float* output,
                     const std::function<void(float*, int64_t)>& after_pixels,
                     const ConstantOperand& constant, bool* done) {
  *done = false;
  const Api* api = LoadApi();
  if (api == nullptr || d.patch_depth != d.in_depth) return OkStatus();
  KeepLibraryOnThisThread();
  const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
  // The output's element count fits (ComputeConv2DDimension checked it);
  // its product with the patch size saturates rather than overflows.
  const int64_t outputs = d.batch * d.out_rows * d.out_cols * d.out_depth;
  const int64_t patch = d.filter_rows * d.filter_cols * d.in_depth;
  const int64_t macs = patch > std::numeric_limits<int64_t>::max() / outputs
                           ? std::numeric_limits<int64_t>::max()
                           : outputs * patch;
  const int64_t threads =
      macs < kMinShardedGemmWork ? 1 : int64_t{workers->num_threads};
  // Each image's output rows in `parts` slices, enough for every thread
  // to have one.
  const int64_t parts = std::min(
      d.out_rows, d.batch >= threads ? 1 : (threads + d.batch - 1) / d.batch);
  const int64_t rows_per_part = (d.out_rows + parts - 1) / parts;
  const int64_t num_parts = (d.out_rows + rows_per_part - 1) / rows_per_part;

  // Every slice's primitive first, so that a declined one leaves nothing
  // written.
  std::vector<const ConvPrimitive*> primitives(num_parts);
  std::vector<int64_t> first_input_row(num_parts);
  const int64_t filter_extent = (d.filter_rows - 1) * d.dilation_rows + 1;
  for (int64_t part = 0; part < num_parts; ++part) {
    const int64_t oh0 = part * rows_per_part;
    const int64_t oh1 = std::min(d.out_rows, oh0 + rows_per_part);
    const int64_t ih0 = oh0 * d.stride_rows - d.pad_rows_before;
    const int64_t ih1 = (oh1 - 1) * d.stride_rows - d.pad_rows_before +
                        filter_extent;  // one past the last row read
    const int64_t first = std::max<int64_t>(0, ih0);
    const int64_t last = std::min(d.input_rows, ih1);
    // A slice wholly in the padding (explicit padding wider than the
    // filter) is left to the im2col path.
    if (last <= first) return OkStatus();
    const SliceGeometry g{
        last - first,
        d.input_cols,
        d.in_depth,
        oh1 - oh0,
        d.out_cols,
        d.out_depth,
        d.filter_rows,
        d.filter_cols,
        d.stride_rows,
        d.stride_cols,
        d.dilation_rows,
        d.dilation_cols,
        first - ih0,
        ih1 - last,
        d.pad_cols_before,
        d.pad_cols_after,
        fused.bias != nullptr,
        fused.bias != nullptr ? fused.activation : LibraryActivation::kNone};
    primitives[part] = FindPrimitive(*api, g);
    if (primitives[part] == nullptr) return OkStatus();
    first_input_row[part] = first;
  }

  // The filter in each distinct weights layout the slices use, reordered
  // once on this thread.
  std::vector<Tensor> reordered;
  std::vector<const float*> weights(num_parts);
  for (int64_t part = 0; part < num_parts; ++part) {
    const ConvPrimitive& p = *primitives[part];
    for (int64_t earlier = 0; earlier < part; ++earlier) {
      if (api->memory_desc_equal(primitives[earlier]->weights, p.weights)) {
        weights[part] = weights[earlier];
        break;
      }
    }
    if (weights[part] != nullptr) continue;
    const bool keep = constant.cache != nullptr;
    if (keep) {
      weights[part] = constant.cache->Find(*constant.tensor, p.weights);
      if (weights[part] != nullptr) continue;
    }
    const TensorShape shape({static_cast<int64_t>(
        (p.weights_bytes + sizeof(float) - 1) / sizeof(float))});
    Tensor buffer;
    if (keep) {
      MF_RETURN_IF_ERROR(AllocateKeptCopy(
          ctx, shape.dim_size(0), "a reordered convolution filter", &buffer));
    } else {
      MF_RETURN_IF_ERROR(ctx->allocate_temp(DT_FLOAT, shape, &buffer));
    }
    if (!Execute(*api, p.reorder,
                 {{kArgSrc, const_cast<float*>(filter), &p.filter},
                  {kArgDst, buffer.base<float>(), p.weights}})) {
      return OkStatus();
    }
    if (keep) {
      weights[part] =
          constant.cache->Keep(*constant.tensor, p.weights, &buffer);
      if (weights[part] != nullptr) continue;
    }
    weights[part] = buffer.base<const float>();
    reordered.push_back(std::move(buffer));
  }

  std::atomic<bool> refused{false};
  absl::Mutex mu;
  Status status;
  auto work = [&](int64_t start, int64_t limit) {
    KeepLibraryOnThisThread();
    for (int64_t unit = start; unit < limit; ++unit) {
      const int64_t image = unit / num_parts;
      const int64_t part = unit % num_parts;
      const ConvPrimitive& p = *primitives[part];
      Tensor scratchpad;
      if (p.scratchpad_bytes > 0) {
        Status s = ctx->allocate_temp(
            DT_UINT8, TensorShape({static_cast<int64_t>(p.scratchpad_bytes)}),
            &scratchpad);
        if (!s.ok()) {
          absl::MutexLock lock(&mu);
          status.Update(s);
          return;
        }
      }
      const float* in =
          input + ((image * d.input_rows + first_input_row[part]) *
                   d.input_cols * d.in_depth);
      const int64_t oh0 = part * rows_per_part;
      const int64_t rows = std::min(d.out_rows, oh0 + rows_per_part) - oh0;
      float* out =
          output + (image * d.out_rows + oh0) * d.out_cols * d.out_depth;
      void* scratch =
          p.scratchpad_bytes > 0 ? scratchpad.base<uint8_t>() : nullptr;
      if (!Execute(*api, p.primitive,
                   {{kArgSrc, const_cast<float*>(in), &p.src},
                    {kArgWeights, const_cast<float*>(weights[part]), p.weights},
                    {kArgDst, out, &p.dst},
                    {kArgBias, const_cast<float*>(fused.bias), &p.bias},
                    {kArgScratchpad, scratch, p.scratchpad}})) {
        refused.store(true, std::memory_order_relaxed);
        return;
      }
      if (after_pixels) after_pixels(out, rows * d.out_cols);
    }
  };
  // Cycles per slice: roughly its multiply-adds.
  Shard(static_cast<int>(threads), workers->workers, d.batch * num_parts,
        macs / (d.batch * num_parts), work);
  MF_RETURN_IF_ERROR(status);
  // A refused call (which oneDNN does not do for a primitive it made) leaves
  // the output to the caller, which overwrites all of it.
  *done = !refused.load(std::memory_order_relaxed);
  return OkStatus();
}

}  // namespace internal
}  // namespace minflow
