// AddN's element-wise sums of up to four same-shape tensors, on any Eigen
// device. nvcc-safe: Eigen and the tensor-type aliases only.
#pragma once

#include "minflow/core/tensor_types.h"
#include "src/kernels/cwise_op_functor.h"

namespace minflow {
namespace functor {

// out = in[0] + ... + in[n-1] (accumulate == false) or
// out += in[0] + ... + in[n-1] (accumulate == true), for n in [1, 4], in one
// pass over memory. Integer sums wrap (Note [Integer overflow in kernels]).
template <typename Device, typename T>
struct AddNChunk {
  using ConstFlat = typename TTypes<T>::ConstFlat;
  void operator()(const Device& d, typename TTypes<T>::Flat out,
                  const ConstFlat* in, int n, bool accumulate) const {
    const typename add<T>::func f;
    if (accumulate) {
      switch (n) {
        case 1:
          out.device(d) = out.binaryExpr(in[0], f);
          return;
        case 2:
          out.device(d) = out.binaryExpr(in[0], f).binaryExpr(in[1], f);
          return;
        case 3:
          out.device(d) =
              out.binaryExpr(in[0], f).binaryExpr(in[1], f).binaryExpr(in[2],
                                                                       f);
          return;
      }
    } else {
      switch (n) {
        case 2:
          out.device(d) = in[0].binaryExpr(in[1], f);
          return;
        case 3:
          out.device(d) = in[0].binaryExpr(in[1], f).binaryExpr(in[2], f);
          return;
        case 4:
          out.device(d) =
              in[0].binaryExpr(in[1], f).binaryExpr(in[2], f).binaryExpr(in[3],
                                                                         f);
          return;
      }
    }
  }
};

}  // namespace functor
}  // namespace minflow
