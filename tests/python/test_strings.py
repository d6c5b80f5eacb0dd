"""String tensors from Python: fed as bytes, str or numpy arrays of them,
fetched as bytes (a scalar) or numpy object arrays of bytes, as TensorFlow
does; NULs and non-ASCII bytes survive."""
import numpy as np
import pytest

import minflow as mf


def _run(fetch, feed=None):
    with mf.Session() as sess:
        return sess.run(fetch, feed)


def test_scalar_round_trips_as_bytes():
    x = mf.placeholder(mf.string, [], name="x")
    y = mf.identity(x)
    for value in (b"abc", "abc", np.bytes_(b"abc"), np.str_("abc")):
        out = _run(y, {x: value})
        assert type(out) is bytes and out == b"abc"


def test_one_d_with_nul_and_non_ascii_bytes():
    x = mf.placeholder(mf.string, [None])
    y = mf.identity(x)
    values = [b"a\x00b", b"", "\u00e9t\u00e9", b"\xff\xfe", b"\x00"]
    out = _run(y, {x: values})
    assert out.dtype == object and out.shape == (5,)
    assert list(out) == [b"a\x00b", b"", "\u00e9t\u00e9".encode("utf-8"),
                         b"\xff\xfe", b"\x00"]
    assert all(type(v) is bytes for v in out)


def test_numpy_s_u_and_object_arrays_and_shapes():
    x = mf.placeholder(mf.string)
    y = mf.identity(x)
    s2 = np.array([[b"ab", b"c"], [b"d", b"ef"]], dtype="S2")
    np.testing.assert_array_equal(_run(y, {x: s2}),
                                  np.array(s2.tolist(), dtype=object))
    u = np.array(["x", "\u00fc"], dtype="U1")
    assert list(_run(y, {x: u})) == [b"x", "\u00fc".encode("utf-8")]
    obj = np.array([b"p", "q"], dtype=object)
    assert list(_run(y, {x: obj})) == [b"p", b"q"]
    empty = _run(y, {x: np.zeros((0, 3), dtype=object)})
    assert empty.shape == (0, 3) and empty.dtype == object


def test_string_join_and_string_constants():
    a = mf.constant(["x", "y"], name="a")
    assert a.dtype == mf.string and a.shape.as_list() == [2]
    b = mf.constant(b"!\x00")
    assert b.dtype == mf.string and b.shape.as_list() == []
    j = mf.string_join([a, b], separator="-")
    assert list(_run(j)) == [b"x-!\x00", b"y-!\x00"]
    c = mf.constant("k", shape=[2, 2])
    assert _run(c).tolist() == [[b"k", b"k"], [b"k", b"k"]]
    assert _run(mf.constant([], dtype=mf.string)).shape == (0,)


def test_non_string_elements_are_a_type_error():
    x = mf.placeholder(mf.string, [None])
    with pytest.raises(TypeError, match="Expected bytes or str"):
        _run(mf.identity(x), {x: [b"a", 3]})
    with pytest.raises(TypeError, match="Expected bytes or str"):
        mf.constant([1, "a"], dtype=mf.string)


def test_dtype_of_numpy_string_kinds():
    assert mf.as_dtype(np.dtype("S3")) == mf.string
    assert mf.as_dtype(np.dtype("U3")) == mf.string
    assert mf.as_dtype(object) == mf.string
