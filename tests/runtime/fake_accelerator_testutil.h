// What the fake accelerator's tests share: a graph wholly on the device but
// its feed, and float vectors in and out.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "minflow/core/tensor.h"

namespace minflow {
namespace fake_accel {

// r = relu(x * 2 + x), all on the accelerator but the feed (m = x * 2,
// a = m + x); `fail` fails on the stream, `after_fail` consumes it.
inline constexpr char kChain[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "two"
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
          tensor_shape {}
          float_val: 2
        }
      }
    }
  }
  node {
    name: "m"
    op: "Mul"
    input: "x"
    input: "two"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "a"
    op: "AddV2"
    input: "m"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "r"
    op: "Relu"
    input: "a"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node { name: "fail" op: "FakeAcceleratorFail" input: "m" }
  node {
    name: "after_fail"
    op: "Relu"
    input: "fail"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
)pb";

inline Tensor Vector(const std::vector<float>& values) {
  Tensor t(DT_FLOAT, TensorShape({static_cast<int64_t>(values.size())}));
  std::copy(values.begin(), values.end(), t.flat<float>().data());
  return t;
}

inline std::vector<float> Values(const Tensor& t) {
  const auto flat = t.flat<float>();
  return std::vector<float>(flat.data(), flat.data() + flat.size());
}

}  // namespace fake_accel
}  // namespace minflow
