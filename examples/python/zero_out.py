"""Loads the Examples>ZeroOut custom-op library (examples/zero_out) and
calls its op, as TensorFlow's guide does with tf.load_op_library.

Usage: python3 examples/python/zero_out.py LIBZERO_OUT.so
(build it with examples/zero_out/CMakeLists.txt against an installed
minflow; in this tree the build makes tests/c/libexamples_zero_out.so)
"""
import sys

import minflow as mf

zero_out_module = mf.load_op_library(sys.argv[1])
print(zero_out_module.zero_out.__doc__.split("\n")[0])

x = mf.placeholder(mf.int32, [None], name="x")
zeroed = zero_out_module.zero_out(x)
kept = zero_out_module.zero_out([1.5, 2.5, 3.5], preserve_index=1)
with mf.Session() as sess:
    print("zero_out([5, 4, 3, 2, 1]) =", sess.run(zeroed, {x: [5, 4, 3, 2, 1]}))
    print("zero_out([1.5, 2.5, 3.5], preserve_index=1) =", sess.run(kept))
    try:
        sess.run(zeroed, {x: []})
    except mf.errors.InvalidArgumentError as e:
        print("an empty vector:", type(e).__name__)
