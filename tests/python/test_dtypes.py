"""Every numeric dtype round-trips through a graph, fed and as a Const
(dtypes.py, _tensor.py)."""
import numpy as np
import pytest

import minflow as mf

NUMERIC = [d for d in mf.dtypes.NUMERIC]


def _sample(dtype):
    np_type = dtype.as_numpy_dtype
    if dtype == mf.bool:
        return np.array([[True, False, True], [False, False, True]])
    if dtype.is_complex:
        return np.array([[1 + 2j, -3j, 0.5], [4, 5 - 1j, 6]], dtype=np_type)
    info = np.iinfo(np_type) if dtype.is_integer else np.finfo(np_type)
    return np.array([[info.min, 0, 1], [2, 3, info.max]], dtype=np_type)


@pytest.mark.parametrize("dtype", NUMERIC, ids=lambda d: d.name)
def test_feed_and_fetch_round_trip(dtype):
    value = _sample(dtype)
    x = mf.placeholder(dtype, [2, 3])
    y = mf.identity(x)
    c = mf.constant(value)
    assert c.dtype == dtype
    with mf.Session() as sess:
        fed, const = sess.run([y, c], {x: value})
    for out in (fed, const):
        assert out.dtype == value.dtype
        assert out.shape == (2, 3)
        np.testing.assert_array_equal(out, value)


@pytest.mark.parametrize("dtype", NUMERIC, ids=lambda d: d.name)
def test_as_dtype_names_and_numpy(dtype):
    assert mf.as_dtype(dtype.name) is dtype
    assert mf.as_dtype(dtype.as_datatype_enum) is dtype
    assert mf.as_dtype(np.dtype(dtype.as_numpy_dtype)) is dtype


def test_python_values_take_tensorflows_default_dtypes():
    assert mf.constant(1).dtype == mf.int32
    assert mf.constant(1.5).dtype == mf.float32
    assert mf.constant([1.0, 2.0]).dtype == mf.float32
    assert mf.constant(True).dtype == mf.bool
    assert mf.constant(np.float64(1)).dtype == mf.float64
    assert mf.constant(np.arange(3)).dtype == mf.int64
    assert mf.constant(2, dtype=mf.float16).dtype == mf.float16
    with pytest.raises(TypeError, match="Expected int32"):
        mf.constant(1.5, dtype=mf.int32)
    with pytest.raises(TypeError):
        mf.as_dtype("float33")


def test_types_python_cannot_hold_are_refused():
    # Strings are made (test_strings.py); bfloat16 has no numpy type.
    with pytest.raises(TypeError, match="bfloat16"):
        mf.constant(1.0, dtype=mf.bfloat16)


def test_tf1_variables_have_reference_types():
    g = mf.Graph()
    with g.as_default():
        v = mf.ops.variable_v2(shape=[2], dtype=mf.float32, name="v")
        assert v.dtype.name == "float32_ref"
        assert v.dtype != mf.float32
        assert v.dtype.base_dtype == mf.float32
        assert v.dtype.is_floating and v.dtype._is_ref_dtype
        assert not mf.float32._is_ref_dtype
        assert mf.dtypes.as_dtype("int64_ref").base_dtype == mf.int64
        init = mf.ops.assign(v, mf.constant([1.0, 2.0]))
        step = mf.ops.assign_add(v, mf.constant([10.0, 10.0]))
        read = mf.identity(v)
    with mf.Session(graph=g) as sess:
        sess.run(init)
        sess.run(step)
        np.testing.assert_array_equal(sess.run(read), [11.0, 12.0])
