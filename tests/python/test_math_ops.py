"""Tensor operators and indexing agree with numpy (math_ops.py)."""
import numpy as np
import pytest

import minflow as mf

A = np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], np.float32)
B = np.array([[2.0, 1.0, -1.0], [0.5, 3.0, 2.0]], np.float32)


def _run(t, feed=None):
    with mf.Session() as sess:
        return sess.run(t, feed)


def test_binary_operators_match_numpy():
    a = mf.placeholder(mf.float32, [2, 3])
    b = mf.constant(B)
    cases = {
        "add": (a + b, A + B),
        "radd": (1.0 + a, 1.0 + A),
        "sub": (a - b, A - B),
        "rsub": (10.0 - a, 10.0 - A),
        "mul": (a * b, A * B),
        "div": (a / b, A / B),
        "rdiv": (1.0 / b, 1.0 / B),
        "floordiv": (a // b, A // B),
        "mod": (a % b, np.mod(A, B)),
        "pow": (b ** 2.0, B ** 2.0),
        "neg": (-a, -A),
        "abs": (abs(a), np.abs(A)),
        "matmul": (a @ mf.ops.transpose(b, [1, 0]), A @ B.T),
        "numpy_left": (np.float32(2.0) * a, 2.0 * A),
    }
    got = _run({k: v[0] for k, v in cases.items()}, {a: A})
    for k, (_, want) in cases.items():
        np.testing.assert_allclose(got[k], want, rtol=1e-6, err_msg=k)


def test_comparisons_and_logic():
    a = mf.placeholder(mf.float32, [2, 3])
    b = mf.constant(B)
    got = _run([a < b, a <= b, a > b, a >= b], {a: A})
    for g, w in zip(got, [A < B, A <= B, A > B, A >= B]):
        np.testing.assert_array_equal(g, w)
    p = mf.constant([True, False, True])
    q = mf.constant([True, True, False])
    got = _run([p & q, p | q, ~p])
    np.testing.assert_array_equal(got[0], [True, False, False])
    np.testing.assert_array_equal(got[1], [True, True, True])
    np.testing.assert_array_equal(got[2], [False, True, False])


def test_integer_true_division_gives_floats():
    a = mf.constant([7, 8], dtype=mf.int32)
    out = _run(a / 2)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, [3.5, 4.0])
    np.testing.assert_array_equal(_run(a // 2), [3, 4])


X = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)


@pytest.mark.parametrize("key", [
    (0,), (-1,), (slice(None),), (1, 2), (0, slice(1, None)),
    (slice(None), slice(None, None, -1)), (Ellipsis, 1), (Ellipsis, None),
    (None, 1, Ellipsis), (slice(0, 2), slice(None), slice(None, None, 2)),
    (-1, -1, -1), (1, slice(-2, None), slice(1, 3)),
], ids=repr)
def test_indexing_matches_numpy(key):
    x = mf.placeholder(mf.float32, [2, 3, 4])
    t = x[key if len(key) > 1 else key[0]]
    want = X[key if len(key) > 1 else key[0]]
    assert t.shape.as_list() == list(want.shape)
    np.testing.assert_array_equal(_run(t, {x: X}), want)


def test_indexing_with_a_tensor_and_bad_keys():
    x = mf.constant(X)
    assert x[0].op.name == "strided_slice"
    assert x[0].op.inputs[1].op.name == "strided_slice_1/begin"
    i = mf.placeholder(mf.int32, [])
    np.testing.assert_array_equal(_run(x[i, 1:], {i: 1}), X[1, 1:])
    with pytest.raises(TypeError, match="valid indices"):
        x["a"]
    with pytest.raises(ValueError, match="step cannot be zero"):
        x[::0]


def test_helpers():
    x = mf.constant(A)
    got = _run({
        "sum": mf.reduce_sum(x),
        "sum0": mf.reduce_sum(x, axis=0),
        "mean": mf.reduce_mean(x, axis=1, keepdims=True),
        "max": mf.reduce_max(x),
        "argmax": mf.argmax(x, axis=1),
        "cast": mf.cast(x, mf.int32),
        "reshape": mf.reshape(x, [3, 2]),
    })
    np.testing.assert_allclose(got["sum"], A.sum())
    np.testing.assert_allclose(got["sum0"], A.sum(0))
    np.testing.assert_allclose(got["mean"], A.mean(1, keepdims=True))
    assert got["max"] == A.max()
    np.testing.assert_array_equal(got["argmax"], A.argmax(1))
    assert got["argmax"].dtype == np.int64
    np.testing.assert_array_equal(got["cast"], A.astype(np.int32))
    np.testing.assert_array_equal(got["reshape"], A.reshape(3, 2))
