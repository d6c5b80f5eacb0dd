"""Session.run: fetch structures, feeds, targets, graph growth, threads
(session.py)."""
import collections
import threading

import numpy as np
import pytest

import minflow as mf


def test_nested_fetches_keep_their_structure():
    x = mf.placeholder(mf.float32, [2], name="x")
    y = x * 2.0
    z = x + 1.0
    noop = mf.ops.no_op()
    Pair = collections.namedtuple("Pair", ["first", "second"])
    with mf.Session() as sess:
        out = sess.run(
            {
                "a": [y, (z, x)],
                "b": Pair(first=y, second={"deep": [z]}),
                "op": noop,
            },
            feed_dict={x: [1.0, 2.0]})
    assert sorted(out) == ["a", "b", "op"]
    np.testing.assert_array_equal(out["a"][0], [2, 4])
    assert isinstance(out["a"][1], tuple)
    np.testing.assert_array_equal(out["a"][1][0], [2, 3])
    np.testing.assert_array_equal(out["a"][1][1], [1, 2])
    assert isinstance(out["b"], Pair)
    np.testing.assert_array_equal(out["b"].second["deep"][0], [2, 3])
    assert out["op"] is None


def test_fetch_and_feed_by_name_and_repeated_fetches():
    x = mf.placeholder(mf.int32, [], name="x")
    y = mf.identity(x + 5, name="y")
    with mf.Session() as sess:
        assert sess.run("y:0", {"x:0": 1}) == 6
        a, b = sess.run([y, y], {x: 2})
        assert a == b == 7
        assert sess.run("y", {x: 2}) is None  # an op name: a target
        with pytest.raises(TypeError, match="invalid type"):
            sess.run(None)
        with pytest.raises(KeyError):
            sess.run("nope:0")


def test_results_are_numpy_arrays_with_the_graph_dtype_and_shape():
    a = mf.constant(np.arange(6, dtype=np.int64).reshape(2, 3))
    with mf.Session() as sess:
        v = sess.run(a)
    assert isinstance(v, np.ndarray)
    assert v.dtype == np.int64 and v.shape == (2, 3)
    assert v.flags.writeable


def test_large_outputs_are_handed_over_without_a_copy():
    from minflow import _tensor
    x = mf.placeholder(mf.float32, [1 << 12], name="x")
    y = x * 3.0
    c = mf.constant(np.ones(1 << 12, np.float32))
    feed = np.arange(1 << 12, dtype=np.float32)
    with mf.Session() as sess:
        moved = _tensor.stats["moved"]
        v = sess.run(y, {x: feed})
        assert _tensor.stats["moved"] == moved + 1
        assert not v.flags.owndata  # a view of the fetched tensor
        np.testing.assert_array_equal(v, feed * 3)
        v[0] = 42.0  # writable, and the memory is ours
        # A Const's value is shared with the session: copied.
        cv = sess.run(c)
        assert _tensor.stats["moved"] == moved + 1
        cv[:] = 0
        assert sess.run(c)[0] == 1.0
    released = _tensor.stats["released"]
    del v
    import gc
    gc.collect()
    assert _tensor.stats["released"] == released + 1


def test_aligned_feeds_are_not_copied_and_outputs_never_alias_them():
    from minflow import _tensor
    n = 1 << 15
    buf = np.empty(n + 16, np.float32)
    off = (-buf.ctypes.data % 64) // 4
    feed = buf[off:off + n]
    feed[:] = 1.0
    assert feed.ctypes.data % 64 == 0
    x = mf.placeholder(mf.float32, [n])
    y = mf.identity(x)
    with mf.Session() as sess:
        out = sess.run(y, {x: feed})
        assert not np.shares_memory(out, feed)
        np.testing.assert_array_equal(out, feed)
    assert not _tensor._live_arrays  # every zero-copy feed was released


def test_feed_values_must_be_values():
    x = mf.placeholder(mf.float32, [])
    with mf.Session() as sess:
        y = x * 2.0
        assert sess.run(y, {x: 1.0}) == 2.0
        with pytest.raises(TypeError, match="cannot be a minflow.Tensor"):
            sess.run(y, {x: mf.constant(1.0)})
        with pytest.raises(TypeError, match="Cannot interpret feed_dict key"):
            sess.run(x * 2.0, {"nope:0": 1.0})


def test_feed_is_converted_to_the_placeholder_dtype():
    x = mf.placeholder(mf.float64, [3])
    with mf.Session() as sess:
        v = sess.run(mf.identity(x), {x: [1, 2, 3]})
    assert v.dtype == np.float64


def test_ops_added_after_the_session_are_runnable():
    a = mf.constant(2.0)
    sess = mf.Session()
    assert sess.run(a) == 2.0
    b = a * 5.0
    assert sess.run(b) == 10.0
    assert sess.run(a) == 2.0
    sess.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.run(a)


def test_session_context_sets_defaults(graph):
    a = mf.constant(3.0)
    with mf.Session() as sess:
        assert mf.get_default_session() is sess
        assert a.eval() == 3.0
        assert mf.ops.no_op().run() is None
    assert mf.get_default_session() is None
    g2 = mf.Graph()
    with g2.as_default():
        b = mf.constant(4.0)
    with mf.Session(graph=g2) as s2:
        assert s2.run(b) == 4.0


def test_runs_from_several_threads():
    x = mf.placeholder(mf.int32, [])
    y = x * 2
    sess = mf.Session()
    errors = []

    def worker(i):
        try:
            for _ in range(200):
                assert sess.run(y, {x: i}) == 2 * i
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_run_options_and_metadata():
    a = mf.constant(1.0) + 1.0
    meta = bytearray()
    with mf.Session() as sess:
        assert sess.run(a, options=b"", run_metadata=meta) == 2.0
    assert isinstance(meta, bytearray)


def test_scalars_come_back_as_numpy_scalars():
    # As TensorFlow's Session.run: a 0-d result is a numpy scalar, whether
    # the graph knows the shape (the Const) or not (the fed Placeholder).
    c = mf.constant(2.5)
    x = mf.placeholder(mf.int64)
    with mf.Session() as sess:
        a, b = sess.run([c, mf.identity(x)], {x: 7})
    assert type(a) is np.float32 and a == 2.5
    assert type(b) is np.int64 and b == 7


def test_make_callable_runs_like_run():
    x = mf.placeholder(mf.float32, [2], name="x")
    k = mf.placeholder(mf.float32, [], name="k")
    y = x * k
    with mf.Session() as sess:
        f = sess.make_callable({"y": y, "x": [x]}, feed_list=[x, "k:0"])
        out = f([1.0, 2.0], 3.0)
        np.testing.assert_array_equal(out["y"], [3, 6])
        np.testing.assert_array_equal(out["x"][0], [1, 2])
        assert f([1.0, 1.0], 0.5)["y"].tolist() == [0.5, 0.5]
        with pytest.raises(TypeError, match="expected 2 feed values"):
            f([1.0, 2.0])
        g = sess.make_callable(y + 1.0, [x, k], accept_options=True)
        meta = bytearray()
        assert g([1.0, 1.0], 1.0, run_metadata=meta).tolist() == [2, 2]
        with pytest.raises(ValueError, match="twice"):
            sess.make_callable(y, [x, x])
