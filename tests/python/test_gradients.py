"""minflow.gradients and minflow.RegisterGradient (gradients_impl.py):
gradients built through the C API's MF_AddGradients agree with numpy, and
Python gradient functions take part in them."""
import numpy as np
import pytest

import minflow as mf

X = np.array([1.5, -2.0, 0.25, 3.0], np.float32)


def _run(fetches, feed=None):
    with mf.Session() as sess:
        return sess.run(fetches, feed)


def test_polynomial_gradient_matches_numpy(graph):
    x = mf.placeholder(mf.float32, [4], name="x")
    y = x * x * x - 2.0 * x + 1.0
    dx, = mf.gradients(y, x)
    assert dx.op.name.startswith("gradients/")
    assert dx.dtype == mf.float32
    np.testing.assert_allclose(_run(dx, {x: X}), 3 * X * X - 2, rtol=1e-6)


def test_matmul_gradients_match_numpy():
    a_val = np.arange(6, dtype=np.float32).reshape(2, 3) / 4.0
    b_val = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    w_val = np.arange(8, dtype=np.float32).reshape(2, 4) - 3.0
    a = mf.placeholder(mf.float32, [2, 3])
    b = mf.placeholder(mf.float32, [3, 4])
    loss = mf.reduce_sum(mf.matmul(a, b) * w_val)
    da, db = mf.gradients(loss, [a, b])
    got_a, got_b = _run([da, db], {a: a_val, b: b_val})
    np.testing.assert_allclose(got_a, w_val @ b_val.T, rtol=1e-5)
    np.testing.assert_allclose(got_b, a_val.T @ w_val, rtol=1e-5)


def test_sum_gradient_with_grad_ys_broadcasts_them():
    x = mf.placeholder(mf.float32, [2, 3])
    rows = mf.reduce_sum(x, axis=1)
    upstream = np.array([2.0, -1.0], np.float32)
    dx, = mf.gradients(rows, x, grad_ys=upstream)
    np.testing.assert_allclose(_run(dx, {x: np.ones((2, 3), np.float32)}),
                               np.repeat(upstream[:, None], 3, axis=1))


def test_several_ys_sum_and_none_grad_ys_are_ones():
    x = mf.placeholder(mf.float32, [4])
    y1 = x * x
    y2 = 5.0 * x
    dx, = mf.gradients([y1, y2], x, grad_ys=[None, 2.0 * mf.ones_like(y2)])
    np.testing.assert_allclose(_run(dx, {x: X}), 2 * X + 10, rtol=1e-6)
    with pytest.raises(ValueError, match="2 grad_ys for 1 ys"):
        mf.gradients(y1, x, grad_ys=[None, None])


def test_unconnected_gradients_none_or_zero():
    x = mf.placeholder(mf.float32, [4])
    unused = mf.placeholder(mf.float32, [2, 2])
    stopped = mf.placeholder(mf.float32, [4])
    y = x * 3.0 + mf.stop_gradient(stopped)
    grads = mf.gradients(y, [x, unused, stopped])
    assert grads[1] is None and grads[2] is None
    np.testing.assert_allclose(_run(grads[0], {x: X, stopped: X}),
                               np.full(4, 3.0))
    zeros = mf.gradients(y, [x, unused], unconnected_gradients="zero")
    got = _run(zeros[1], {unused: np.ones((2, 2), np.float32)})
    np.testing.assert_array_equal(got, np.zeros((2, 2), np.float32))
    with pytest.raises(ValueError, match="unconnected_gradients"):
        mf.gradients(y, x, unconnected_gradients="sometimes")


def test_graph_keeps_running_new_ops_after_gradients(graph):
    # A session made before gradients were added sees the new ops.
    x = mf.placeholder(mf.float32, [4])
    y = x * x
    with mf.Session() as sess:
        np.testing.assert_allclose(sess.run(y, {x: X}), X * X)
        dx, = mf.gradients(y, x, name="grads")
        assert dx.op.name.startswith("grads/")
        np.testing.assert_allclose(sess.run(dx, {x: X}), 2 * X)
        # A second call gets a name of its own.
        dx2, = mf.gradients(y, x, name="grads")
        assert dx2.op.name.startswith("grads_1/")


def test_op_without_gradient_is_not_found_then_wrong_counts_fail(graph):
    x = mf.placeholder(mf.float32, [1, 1, 3, 1])
    y = mf.ops.median_pool2d(x, ksize=[1, 1, 1, 1], strides=[1, 1, 1, 1],
                             padding="VALID", name="median")
    loss = y * y
    before = len(graph.get_operations())
    with pytest.raises(mf.errors.NotFoundError, match="MedianPool2D") as e:
        mf.gradients(loss, x)
    assert "'median'" in str(e.value)
    # Nothing half-made is left.
    assert len(graph.get_operations()) == before

    # MedianPool2D has one input: a gradient function returning two fails.
    @mf.RegisterGradient("MedianPool2D")
    def _median_grad(op, grad):
        return [grad, grad]

    with pytest.raises(ValueError, match="returned 2 gradients, but the op "
                       "has 1 inputs"):
        mf.gradients(loss, x)
    assert len(graph.get_operations()) == before


@pytest.fixture
def zero_out_module(zero_out_library):
    return mf.load_op_library(zero_out_library)


def _zero_out_grad(op, grad):
    # The "create an op" guide's gradient: the incoming gradient's first
    # element at index 0 of a tensor shaped as the input, zeros elsewhere.
    calls.append((op.type, mf.get_default_graph().get_name_scope()))
    to_zero = op.inputs[0]
    shape = mf.ops.shape(to_zero)
    index = mf.ops.zeros_like(shape)
    first_grad = mf.reshape(grad, [-1])[0]
    to_zero_grad = mf.ops.sparse_to_dense(mf.reshape(index, [1, -1]), shape,
                                          first_grad, 0.0)
    return [to_zero_grad]


calls = []


def test_registered_python_gradient_of_zero_out(zero_out_module, graph):
    mf.RegisterGradient("Examples>ZeroOut")(_zero_out_grad)
    x = mf.placeholder(mf.float32, [4])
    w = np.array([3.0, 5.0, 7.0, 11.0], np.float32)
    z = zero_out_module.zero_out(x * x, preserve_index=0, name="zo")
    loss = mf.reduce_sum(z * w)
    dx, = mf.gradients(loss, x)
    assert len(calls) == 1 and calls[0][0] == "Examples>ZeroOut"
    assert calls[0][1].startswith("gradients/")
    assert calls[0][1].endswith("/zo_grad")
    # d/dx of sum(w * zero_out(x^2)) by the guide's rule: 2 * x[0] * w[0]
    # at index 0.
    want = np.zeros(4, np.float32)
    want[0] = 2 * X[0] * w[0]
    np.testing.assert_allclose(_run(dx, {x: X}), want, rtol=1e-6)

    with pytest.raises(KeyError, match="already registered"):
        mf.RegisterGradient("Examples>ZeroOut")(_zero_out_grad)


def test_registering_over_a_cxx_gradient_is_a_key_error():
    with pytest.raises(KeyError, match="MatMul already has a registered"):
        mf.RegisterGradient("MatMul")(lambda op, grad: [grad, grad])
    with pytest.raises(KeyError, match="declared to have no gradient"):
        mf.RegisterGradient("Shape")(lambda op, grad: [None])
    with pytest.raises(TypeError):
        mf.RegisterGradient(3)


class _Boom(Exception):
    pass


def test_exception_in_a_gradient_function_is_raised_again(graph):
    made = []

    @mf.RegisterGradient("Example")
    def _example_grad(op, grad):
        made.append(mf.ops.identity(grad, name="made_before_failing").op.name)
        raise _Boom("no gradient today")

    x = mf.placeholder(mf.float32, [4])
    y = mf.ops.example(x, name="doubled") * 1.5
    before = len(graph.get_operations())
    with pytest.raises(_Boom, match="no gradient today") as e:
        mf.gradients(y, x)
    cause = e.value.__cause__
    assert isinstance(cause, mf.OpError)
    assert "'doubled'" in cause.message and "_Boom" in cause.message
    # What the call added, the function's own op included, is gone, and the
    # graph still runs.
    assert len(graph.get_operations()) == before
    assert len(made) == 1
    assert made[0].endswith("/made_before_failing")
    assert graph._operation_by_name_or_none(made[0]) is None
    np.testing.assert_allclose(_run(y, {x: X}), 3 * X, rtol=1e-6)


def test_not_differentiable_stops_gradients(graph):
    # LocalResponseNormalization (LRN) has no gradient yet: NotFound, then
    # declared without one, gradients stop there (here: only the + x term).
    x = mf.placeholder(mf.float32, [1, 1, 1, 4])
    y = mf.ops.lrn(x) + x
    with pytest.raises(mf.errors.NotFoundError, match="LRN"):
        mf.gradients(y, x)
    mf.NotDifferentiable("LRN")
    dx, = mf.gradients(y, x)
    got = _run(dx, {x: X.reshape(1, 1, 1, 4)})
    np.testing.assert_array_equal(got, np.ones((1, 1, 1, 4), np.float32))
    with pytest.raises(KeyError, match="declared to have no gradient"):
        mf.no_gradient("LRN")
    with pytest.raises(KeyError, match="already has a registered gradient"):
        mf.NotDifferentiable("MatMul")
