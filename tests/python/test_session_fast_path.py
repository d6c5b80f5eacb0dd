"""The common Session.run path (session.py _run_locked): C callables, feed
tensors kept between runs (Note [Reused feed tensors]) and scalars written
in place; each must give what a fresh run gives."""
import numpy as np
import pytest

import minflow as mf


def test_a_kept_feed_is_not_overwritten_under_a_variable_that_holds_it():
    x = mf.placeholder(mf.float32, [], name="x")
    flag = mf.placeholder(mf.float32, [], name="flag")
    v = mf.ops.var_handle_op(dtype=mf.float32, shape=[], name="v")
    with mf.control_dependencies([mf.ops.check_numerics(flag, message="f")]):
        assign = mf.ops.assign_variable_op(v, x)
    read = mf.ops.read_variable_op(v, dtype=mf.float32)
    with mf.Session() as sess:
        sess.run(assign, {x: np.float32(1.0), flag: 0.0})
        assert sess.run(read) == 1.0
        # The same runner again: its feed of x is written before the run,
        # which then fails before the assign. The variable must still read
        # 1.0 (minflow's AssignVariableOp copies a shared buffer today; the
        # next test covers a buffer something does keep).
        with pytest.raises(mf.errors.InvalidArgumentError):
            sess.run(assign, {x: np.float32(5.0), flag: np.nan})
        assert sess.run(read) == 1.0
        sess.run(assign, {x: 7.0, flag: 0.0})
        assert sess.run(read) == 7.0


def test_a_feed_tensor_is_kept_only_while_it_is_the_only_owner(monkeypatch):
    from minflow import session as session_module
    from minflow._c import ffi, lib
    x = mf.placeholder(mf.float32, [], name="x")
    y = mf.identity(x) * 2.0
    with mf.Session() as sess:
        assert sess.run(y, {x: 1.0}) == 2.0
        runner = sess._runners[(y, (x,))]
        slot = runner.slots_in[0]
        kept = slot.tensor
        assert kept is not None  # the only owner after the run: kept
        assert sess.run(y, {x: 2.0}) == 4.0
        assert slot.tensor is kept  # and reused
        # As if an op had kept the fed buffer: the tensor is dropped after
        # the run and the next run makes a new one, never writing into it.
        monkeypatch.setattr(session_module, "lib", _SharedLib(lib, ffi))
        assert sess.run(y, {x: 3.0}) == 6.0
        assert slot.tensor is None
        assert sess.run(y, {x: 4.0}) == 8.0
        assert slot.tensor is None


class _SharedLib(object):
    """The C library, with MF_TensorMaybeMove saying every buffer is
    shared."""

    def __init__(self, lib, ffi):
        self._lib = lib
        self._ffi = ffi

    def MF_TensorMaybeMove(self, t):
        return self._ffi.NULL

    def __getattr__(self, name):
        return getattr(self._lib, name)


def test_scalar_feeds_convert_as_numpy_does():
    f = mf.placeholder(mf.float32, [], name="f")
    i = mf.placeholder(mf.int32, [], name="i")
    u = mf.placeholder(mf.uint8, [], name="u")
    with mf.Session() as sess:
        for value in (2.5, 3, np.float64(0.1), np.int64(-4), np.float32(8)):
            got = sess.run(mf.identity(f), {f: value})
            assert got == np.asarray(value, np.float32)
            assert got.dtype == np.float32
        # A float into an integer placeholder: numpy truncates (cffi would
        # refuse; the fast path hands it to numpy).
        fi = mf.identity(i)
        assert sess.run(fi, {i: 7}) == 7
        assert sess.run(fi, {i: 1.9}) == 1
        assert sess.run(fi, {i: np.float64(-2.7)}) == -2
        assert sess.run(mf.identity(u), {u: 255}) == 255
        # bools go through numpy too.
        assert sess.run(fi, {i: True}) == 1


def test_feed_shape_changes_between_runs():
    x = mf.placeholder(mf.float32, name="x")
    y = x * 2.0
    with mf.Session() as sess:
        assert sess.run(y, {x: 1.0}) == 2.0
        np.testing.assert_array_equal(sess.run(y, {x: [1.0, 2.0]}), [2, 4])
        np.testing.assert_array_equal(sess.run(y, {x: [[3.0]]}), [[6]])
        assert sess.run(y, {x: np.float32(4)}) == 8.0
        # A one-element array is not a scalar, even after scalar runs.
        out = sess.run(y, {x: np.array([5.0], np.float32)})
        assert out.shape == (1,) and out[0] == 10
        # Non-contiguous arrays are copied right.
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        np.testing.assert_array_equal(sess.run(y, {x: a.T}), a.T * 2)
        np.testing.assert_array_equal(sess.run(y, {x: a.T}), a.T * 2)


def test_callables_follow_the_graph_and_many_runners_are_fine():
    x = mf.placeholder(mf.float32, [], name="x")
    y = x + 1.0
    with mf.Session() as sess:
        assert sess.run(y, {x: 1.0}) == 2.0
        z = y * 3.0  # a new op: the session makes a new C session
        assert sess.run(z, {x: 1.0}) == 6.0
        assert sess.run(y, {x: 2.0}) == 3.0  # the old runner's new callable
        calls = [sess.make_callable(y, [x]) for _ in range(50)]
        assert [c(float(k)) for k, c in enumerate(calls)] == [
            k + 1.0 for k in range(50)
        ]
        del calls


def test_errors_from_the_fast_path_name_the_node():
    x = mf.placeholder(mf.float32, [2], name="x")
    y = mf.identity(x, name="y")
    with mf.Session() as sess:
        with pytest.raises(mf.errors.InvalidArgumentError, match="x"):
            sess.run(y, {x: [1.0, 2.0, 3.0]})
        np.testing.assert_array_equal(sess.run(y, {x: [1.0, 2.0]}), [1, 2])
        with pytest.raises(mf.errors.InvalidArgumentError):
            sess.run(y)  # x is not fed
