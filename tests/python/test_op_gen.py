"""Op functions from the registry and from a custom-op library
(op_gen.py)."""
import inspect

import numpy as np
import pytest

import minflow as mf


def test_every_registered_op_has_a_function():
    for name in ("MatMul", "AddV2", "Conv2D", "StridedSlice", "TopKV2"):
        fn = getattr(mf.raw_ops, name)
        assert fn is getattr(mf.ops, mf.op_gen.snake_case(name))
    assert mf.op_gen.snake_case("Conv2D") == "conv2d"
    assert mf.op_gen.snake_case("TopKV2") == "top_kv2"
    assert mf.op_gen.snake_case("L2Loss") == "l2_loss"
    assert mf.op_gen.snake_case("Examples>ZeroOut") == "examples_zero_out"


def test_signature_has_inputs_attrs_with_defaults_and_name():
    sig = inspect.signature(mf.ops.mat_mul)
    params = sig.parameters
    assert list(params)[:2] == ["a", "b"]
    assert params["transpose_a"].default is False
    assert params["name"].default is None
    assert "T" not in params  # inferred from the inputs
    # Cast: SrcT is inferred, DstT is required.
    assert "DstT" in inspect.signature(mf.ops.cast).parameters
    assert "SrcT" not in inspect.signature(mf.ops.cast).parameters
    assert inspect.signature(
        mf.ops.arg_max).parameters["output_type"].default == mf.int64


def test_docstring_comes_from_the_op_def():
    doc = mf.ops.mat_mul.__doc__
    assert "transpose_a: An optional `bool`. Defaults to `False`." in doc
    assert "a: A `Tensor` of type `T`" in doc
    assert "float" in doc  # T's allowed types
    assert "Returns:" in doc and "product" in doc


def test_docstring_starts_with_the_op_summary():
    # Every op function's docstring opens with its OpDef's one-line summary
    # (tests/ops/op_docs_test checks that every op has one), then the
    # description.
    doc = mf.ops.mat_mul.__doc__
    assert doc.startswith("Matrix product of two 2-D tensors.\n\n")
    assert "The inner dimensions, after the optional transposes" in doc
    assert "transpose_a: An optional `bool`. Defaults to `False`. Use the " \
           "transpose of a." in doc
    # A description's later lines stay indented under its Args entry.
    assert "begin_mask: An optional `int`. Defaults to `0`. Bit i set " \
           "ignores begin[i] and starts from the first (or, with\n    a " \
           "negative stride, last) element." in mf.ops.strided_slice.__doc__
    fns = [f for f in vars(mf.raw_ops).values() if hasattr(f, "op_type")]
    assert len(fns) > 200
    for fn in fns:
        od = mf.op_gen.op_def(fn.op_type)
        assert od.summary, fn.op_type
        assert fn.__doc__.startswith(od.summary + "\n"), fn.op_type


def test_attrs_and_multiple_outputs():
    x = mf.constant([[1.0, 2.0], [3.0, 4.0]])
    y = mf.ops.mat_mul(x, x, transpose_b=True)
    assert y.op.get_attr("transpose_b") is True
    values, indices = mf.ops.top_kv2(mf.constant([3.0, 1.0, 2.0]), 2)
    parts = mf.ops.split(0, mf.constant([1, 2, 3, 4]), num_split=2)
    assert isinstance(parts, list) and len(parts) == 2
    total = mf.ops.add_n([x, x, x])
    with mf.Session() as sess:
        v, i, p, t, yy = sess.run([values, indices, parts, total, y])
    np.testing.assert_array_equal(v, [3, 2])
    np.testing.assert_array_equal(i, [0, 2])
    np.testing.assert_array_equal(p[1], [3, 4])
    np.testing.assert_array_equal(t, 3 * np.array([[1, 2], [3, 4]]))
    np.testing.assert_array_equal(yy, [[5, 11], [11, 25]])


def test_plain_values_take_the_type_of_their_tensor_partner():
    x = mf.placeholder(mf.float64, [])
    y = mf.ops.add_v2(x, 1)  # 1 becomes a float64 Const
    assert y.dtype == mf.float64
    assert y.op.inputs[1].dtype == mf.float64


def test_load_op_library_returns_a_module_of_its_ops(zero_out_library):
    module = mf.load_op_library(zero_out_library)
    assert module.zero_out is module.examples_zero_out
    assert mf.ops.examples_zero_out is module.zero_out
    assert mf.raw_ops.Examples_ZeroOut is module.zero_out
    assert "preserve_index" in inspect.signature(module.zero_out).parameters
    assert "Zeroes every element" in module.zero_out.__doc__
    x = mf.placeholder(mf.int32, [4])
    y = module.zero_out(x, preserve_index=2)
    assert y.op.type == "Examples>ZeroOut"
    assert y.shape == [4]
    with mf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [5, 6, 7, 8]}),
                                      [0, 0, 7, 0])
    # Loading it again gives the same ops.
    again = mf.load_op_library(zero_out_library)
    assert again.zero_out.op_type == "Examples>ZeroOut"
    # Its shape function's error, at construction.
    with pytest.raises(mf.errors.InvalidArgumentError,
                       match="preserve_index must be less"):
        module.zero_out(x, preserve_index=9)


def test_load_op_library_errors(tmp_path):
    with pytest.raises(mf.errors.NotFoundError, match="no_such_lib"):
        mf.load_op_library(str(tmp_path / "no_such_lib.so"))
    bad = tmp_path / "not_a_library.so"
    bad.write_text("hello")
    with pytest.raises(mf.errors.InvalidArgumentError,
                       match="cannot load op library"):
        mf.load_op_library(str(bad))


def test_string_list_and_shape_attrs():
    image = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    kernel = np.ones([2, 2, 1, 1], np.float32)
    y = mf.ops.conv2d(image, kernel, strides=[1, 2, 2, 1], padding="VALID")
    assert y.op.get_attr("padding") == b"VALID"
    assert y.op.get_attr("strides") == [1, 2, 2, 1]
    assert y.shape == [1, 2, 2, 1]
    p = mf.ops.placeholder_with_default([1.0, 2.0], shape=[None])
    assert p.op.get_attr("shape") == [-1]
    sq = mf.ops.squeeze(mf.constant([[[3.0]]]), squeeze_dims=[0, 2])
    with mf.Session() as sess:
        out, pv, sv = sess.run([y, p, sq])
    want = image[0, :, :, 0].reshape(2, 2, 2, 2).sum(axis=(1, 3))
    np.testing.assert_array_equal(out[0, :, :, 0], want)
    np.testing.assert_array_equal(pv, [1, 2])
    np.testing.assert_array_equal(sv, [3])
    with pytest.raises(TypeError, match="attr 'strides' must be a list"):
        mf.ops.conv2d(image, kernel, strides=5, padding="VALID")
