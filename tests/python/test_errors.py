"""C API errors as OpError subclasses with TensorFlow's names (errors.py)."""
import numpy as np
import pytest

import minflow as mf


def test_every_code_has_its_tensorflow_class():
    names = ["CancelledError", "UnknownError", "InvalidArgumentError",
             "DeadlineExceededError", "NotFoundError", "AlreadyExistsError",
             "PermissionDeniedError", "ResourceExhaustedError",
             "FailedPreconditionError", "AbortedError", "OutOfRangeError",
             "UnimplementedError", "InternalError", "UnavailableError",
             "DataLossError", "UnauthenticatedError"]
    for code, name in enumerate(names, start=1):
        cls = getattr(mf.errors, name)
        assert issubclass(cls, mf.errors.OpError)
        assert mf.errors.exception_type_from_error_code(code) is cls
        assert mf.errors.error_code_from_exception_type(cls) == code
        assert cls(None, None, "m").error_code == code


def test_shape_error_at_construction_names_the_op():
    a = mf.placeholder(mf.float32, [2, 3])
    b = mf.placeholder(mf.float32, [2, 3])
    with pytest.raises(mf.errors.InvalidArgumentError) as e:
        mf.matmul(a, b, name="bad_matmul")
    assert "Dimensions must be equal" in e.value.message
    assert "bad_matmul" in str(e.value)
    assert e.value.error_code == mf.errors.INVALID_ARGUMENT
    # The failed op is not in the graph; its name is free again.
    assert all(op.name != "bad_matmul" for op in
               mf.get_default_graph().get_operations())


def test_unknown_op_and_bad_attr_are_errors():
    with pytest.raises(mf.errors.NotFoundError):
        mf.get_default_graph().create_op("NoSuchOp", [], name="x")
    with pytest.raises(TypeError, match="attr 'transpose_a' must be a bool"):
        mf.matmul(mf.constant([[1.0]]), mf.constant([[1.0]]),
                  transpose_a="yes")
    with pytest.raises(TypeError, match=r"mat_mul\(\)"):
        mf.ops.mat_mul(mf.constant([[1.0]]))


def test_op_functions_bind_arguments_as_python_does():
    a = mf.constant([[1.0]])
    with pytest.raises(TypeError,
                       match=r"mat_mul\(\): missing a required argument: 'b'"):
        mf.ops.mat_mul(a)
    with pytest.raises(TypeError,
                       match=r"mat_mul\(\): too many positional arguments"):
        mf.ops.mat_mul(a, a, False, False, False, False, "n", "extra")
    with pytest.raises(TypeError, match="unexpected keyword argument 'c'"):
        mf.ops.mat_mul(a, a, c=a)
    with pytest.raises(TypeError, match="multiple values for argument 'a'"):
        mf.ops.mat_mul(a, a, a=a)
    # Positional, keyword and default attrs all reach the op.
    op = mf.ops.mat_mul(a, b=a, transpose_b=True, name="bound").op
    assert op.name == "bound"
    assert op.get_attr("transpose_b") is True
    assert op.get_attr("transpose_a") is False


def test_missing_feed_is_invalid_argument_naming_the_placeholder():
    x = mf.placeholder(mf.float32, [2], name="needs_feed")
    y = x * 2.0
    with mf.Session() as sess:
        with pytest.raises(mf.errors.InvalidArgumentError) as e:
            sess.run(y)
    assert "needs_feed" in e.value.message


def test_kernel_error_carries_the_node_and_its_operation():
    x = mf.placeholder(mf.int32, [None], name="x")
    bad = mf.ops.reshape(x, [3], name="reshape_it")
    with mf.Session() as sess:
        with pytest.raises(mf.errors.OpError) as e:
            sess.run(bad, {x: np.arange(4, dtype=np.int32)})
    assert isinstance(e.value, mf.errors.InvalidArgumentError)
    assert "reshape_it" in e.value.message
    assert e.value.op is bad.op


def test_wrong_feed_dtype_or_shape():
    x = mf.placeholder(mf.int32, [2])
    with mf.Session() as sess:
        with pytest.raises(mf.errors.InvalidArgumentError):
            sess.run(mf.identity(x), {x: [1, 2, 3]})
