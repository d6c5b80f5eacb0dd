// How many blocks of how many threads a 1-D grid-stride kernel is launched
// with. Pure host arithmetic on the device's limits (no CUDA types), so g++
// and nvcc both compile it and host tests check it without a GPU.
//
// A grid-stride kernel's thread t of block b handles elements
// i = b * thread_per_block + t, then i += block_count * thread_per_block,
// while i < virtual_thread_count: every element is handled exactly once for
// any block_count >= 1, so the launch is sized for the device rather than
// for the work. Blocks are capped at what the device keeps resident at
// once (more would only queue behind the first wave), and small work gets
// fewer threads and blocks than the caps.
#pragma once

#include <cstdint>
#include <limits>

namespace minflow {

struct GpuLaunchConfig {
  int block_count = 0;
  int thread_per_block = 0;
  // The number of work elements the kernel's grid-stride loop covers.
  int64_t virtual_thread_count = 0;
};

// The launch of a grid-stride kernel over `work_element_count` elements on
// a device with `multiprocessor_count` SMs of `max_threads_per_multiprocessor`
// resident threads each and blocks of at most `max_threads_per_block`
// threads. Threads per block: whole warps (32) up to the block limit (and
// 1024), fewer when the work is smaller. Blocks: enough to give every
// element a thread, but at most the resident blocks of the whole device.
// No work (0 or negative) gives 0 blocks of 0 threads: launch nothing.
// Nonsensical limits (0 or negative) count as 1; nothing overflows for any
// int64 work count.
inline GpuLaunchConfig GetGpuLaunchConfig(int64_t work_element_count,
                                          int multiprocessor_count,
                                          int max_threads_per_multiprocessor,
                                          int max_threads_per_block = 1024) {
  GpuLaunchConfig config;
  if (work_element_count <= 0) return config;
  constexpr int64_t kWarp = 32;
  constexpr int64_t kMaxThreadsPerBlock = 1024;  // every CUDA GPU's limit
  const int64_t sms = multiprocessor_count > 0 ? multiprocessor_count : 1;
  int64_t block_cap = max_threads_per_block > 0 ? max_threads_per_block : 1;
  if (block_cap > kMaxThreadsPerBlock) block_cap = kMaxThreadsPerBlock;
  if (block_cap >= kWarp) block_cap = block_cap / kWarp * kWarp;
  const int64_t per_sm = max_threads_per_multiprocessor > block_cap
                             ? max_threads_per_multiprocessor
                             : block_cap;
  // Threads per block: the work rounded up to whole warps, within the cap.
  int64_t threads = block_cap;
  if (work_element_count < threads) {
    threads = block_cap >= kWarp
                  ? (work_element_count + kWarp - 1) / kWarp * kWarp
                  : work_element_count;
    if (threads > block_cap) threads = block_cap;
  }
  // Blocks: one thread per element, at most the device's resident blocks.
  const int64_t needed = (work_element_count - 1) / threads + 1;
  const int64_t resident = sms * (per_sm / threads);
  int64_t blocks = needed < resident ? needed : resident;
  if (blocks > std::numeric_limits<int>::max()) {
    blocks = std::numeric_limits<int>::max();
  }
  config.block_count = static_cast<int>(blocks);
  config.thread_per_block = static_cast<int>(threads);
  config.virtual_thread_count = work_element_count;
  return config;
}

}  // namespace minflow
