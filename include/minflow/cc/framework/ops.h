// The values the C++ graph-building API passes around (TensorFlow's
// cc/framework/ops.h): an Operation (a node of a Scope's graph), an Output
// (one of its tensors), an Input (an Output or a constant to be made) and
// an InputList. They are small values that point into a graph; the graph
// (owned by the Scope that made them) must outlive them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/types/span.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/core/types.h"

namespace minflow {

class Node;
class Output;

// A node of a Scope's graph; null (node() == nullptr) when the op that
// should have made it failed.
class Operation {
 public:
  Operation() = default;
  explicit Operation(Node* node) : node_(node) {}

  Node* node() const { return node_; }
  const std::string& name() const;
  int num_inputs() const;
  DataType input_type(int i) const;
  // The tensor feeding data input `i` (null Output when unconnected).
  Output input(int i) const;
  int num_outputs() const;
  DataType output_type(int i) const;
  Output output(int i) const;

 private:
  Node* node_ = nullptr;
};

// One output tensor of an Operation.
class Output {
 public:
  Output() = default;
  explicit Output(Node* node) : op_(node) {}
  Output(Node* node, int index) : op_(node), index_(index) {}
  Output(const Operation& op, int index) : op_(op), index_(index) {}

  Operation op() const { return op_; }
  Node* node() const { return op_.node(); }
  int index() const { return index_; }
  DataType type() const;
  // What shape inference knew when the op was added ("?" when nothing).
  PartialTensorShape shape() const;
  // "node:index", the name a Session fetches it by.
  std::string name() const;
  bool operator==(const Output& other) const {
    return node() == other.node() && index_ == other.index_;
  }
  size_t hash() const;

 private:
  Operation op_;
  int index_ = 0;
};

struct OutputHash {
  size_t operator()(const Output& output) const { return output.hash(); }
};

using OutputList = std::vector<Output>;

// An op's input: an Output, or a value (a Tensor, a scalar, nested braced
// lists of scalars) that becomes a Const node in the op's scope when the op
// is added, as in TensorFlow: ops::Add(scope, x, 1.0f).
class Input {
 public:
  // A constant: TensorFlow's Input::Initializer. Bad nesting (ragged lists,
  // mixed dtypes) is kept in `status` and reported by the op using it.
  struct Initializer {
    template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
    Initializer(const T& v) {  // NOLINT: implicit, as TensorFlow's
      using Real = RealType<T>;
      const Real value = static_cast<Real>(v);
      tensor = MakeTensor(DataTypeToEnum<Real>::value, {}, &value, 1);
    }
    Initializer(const char* v);                  // NOLINT
    Initializer(const std::string& v);           // NOLINT
    Initializer(const Tensor& t) : tensor(t) {}  // NOLINT
    template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
    Initializer(std::initializer_list<T> v) {  // NOLINT
      using Real = RealType<T>;
      std::vector<Real> values(v.begin(), v.end());
      tensor = MakeTensor(DataTypeToEnum<Real>::value,
                          {static_cast<int64_t>(values.size())}, values.data(),
                          values.size());
    }
    // Nested lists: each element the same dtype and shape; the result has
    // one more dimension.
    Initializer(std::initializer_list<Initializer> v);  // NOLINT

    Status status;
    Tensor tensor;

   private:
    // C++'s `long`/`long long` and `int`/`int32_t` agree on Linux; a bool
    // stays a bool.
    template <typename T>
    using RealType =
        std::conditional_t<std::is_same_v<T, long long>, int64_t,  // NOLINT
                           T>;
    // A tensor of `count` plain values (not strings) of `dtype`.
    static Tensor MakeTensor(DataType dtype, absl::Span<const int64_t> dims,
                             const void* values, size_t count);
  };

  Input(const Output& output) : output_(output) {}  // NOLINT
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
  Input(const T& v) : Input(Initializer(v)) {}            // NOLINT
  Input(const char* v) : Input(Initializer(v)) {}         // NOLINT
  Input(const std::string& v) : Input(Initializer(v)) {}  // NOLINT
  Input(const Tensor& t) : Input(Initializer(t)) {}       // NOLINT
  Input(const Initializer& init)                          // NOLINT
      : status_(init.status), tensor_(init.tensor), is_constant_(true) {}
  Input(std::initializer_list<Initializer> v)  // NOLINT
      : Input(Initializer(v)) {}

  // The Output, when this Input is one.
  const Output& output() const { return output_; }
  Node* node() const { return output_.node(); }
  int index() const { return output_.index(); }
  // A constant to be made into a Const node (tensor() holds its value).
  bool is_constant() const { return is_constant_; }
  const Tensor& tensor() const { return tensor_; }
  const Status& status() const { return status_; }

 private:
  Output output_;
  Status status_;
  Tensor tensor_;
  bool is_constant_ = false;
};

// The inputs of a list argument (`x: N * T`, `x: list(type)`).
class InputList {
 public:
  InputList(const OutputList& outputs)  // NOLINT
      : inputs_(outputs.begin(), outputs.end()) {}
  InputList(std::initializer_list<Input> inputs)  // NOLINT
      : inputs_(inputs.begin(), inputs.end()) {}
  InputList(std::vector<Input> inputs)  // NOLINT
      : inputs_(std::move(inputs)) {}

  const std::vector<Input>& inputs() const { return inputs_; }
  auto begin() const { return inputs_.begin(); }
  auto end() const { return inputs_.end(); }
  size_t size() const { return inputs_.size(); }

 private:
  std::vector<Input> inputs_;
};

}  // namespace minflow
