"""Graph.as_function (the C API's MF_GraphToFunction): a function cut out
of one graph and called from another gives the original subgraph's result."""
import numpy as np
import pytest

import minflow as mf


def _body():
    g = mf.Graph()
    with g.as_default():
        x = mf.placeholder(mf.float32, [2], name="x")
        y = mf.add(mf.multiply(x, x), 1.0, name="y")
    return g, x, y


def test_a_function_called_from_another_graph_matches_the_subgraph():
    g, x, y = _body()
    f = g.as_function("square_plus_one", [x], [y], output_names=["out"],
                      description="x * x + 1")
    assert f.name == "square_plus_one"
    assert b"out" in f.definition and b"x * x + 1" in f.definition
    with mf.Session(graph=g) as sess:
        expected = sess.run(y, {x: [3.0, 4.0]})
    h = mf.Graph()
    with h.as_default():
        a = mf.placeholder(mf.float32, [2], name="a")
        (out,) = f(a, name="call")
        assert out.op.type == "square_plus_one" and out.op.name == "call"
        assert out.shape.as_list() == [2]  # the refiner sees into the body
        (again,) = f(a * 2.0)  # a second call: the library has it already
        with mf.Session() as sess:
            got, got2 = sess.run([out, again], {a: [3.0, 4.0]})
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(got2, [37.0, 65.0])


def test_bad_boundaries_are_errors_naming_the_op():
    g, x, y = _body()
    with g.as_default():
        c = mf.constant([1.0, 2.0], name="c")
    with pytest.raises(mf.errors.InvalidArgumentError,
                       match="'c' \\(op Const\\)"):
        g.as_function("f", [c], [y])
    with pytest.raises(mf.errors.InvalidArgumentError, match="used twice"):
        g.as_function("f", [x], [y, y], output_names=["o", "o"])
    with pytest.raises(ValueError, match="output_names"):
        g.as_function("f", [x], [y], output_names=["a", "b"])
