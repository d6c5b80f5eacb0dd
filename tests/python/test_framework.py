"""Graph, Operation, Tensor and the context managers (framework.py)."""
import pytest

import minflow as mf


def test_placeholder_has_inferred_shape_dtype_and_name(graph):
    x = mf.placeholder(mf.float32, [None, 3], name="x")
    assert x.name == "x:0"
    assert x.dtype == mf.float32
    assert x.shape == [None, 3]
    assert x.shape.rank == 2
    assert not x.shape.is_fully_defined()
    assert x.op.type == "Placeholder"
    assert x.op.graph is graph
    assert x.graph is graph


def test_shape_inference_through_ops():
    a = mf.placeholder(mf.float32, [4, 3])
    b = mf.constant([[1.0], [2.0], [3.0]])
    y = mf.matmul(a, b)
    assert y.shape.as_list() == [4, 1]
    assert mf.placeholder(mf.float32).shape.rank is None


def test_operation_properties(graph):
    x = mf.placeholder(mf.float32, name="x")
    y = mf.identity(x, name="y")
    assert y.op.name == "y"
    assert y.op.inputs == [x]
    assert x.consumers() == [y.op]
    assert y.op.outputs == [y]
    assert y.op.get_attr("T") == mf.float32
    assert x.op.get_attr("dtype") == mf.float32
    with pytest.raises(ValueError, match="no attr named 'nope'"):
        y.op.get_attr("nope")
    assert graph.get_operation_by_name("y") is y.op
    assert graph.get_tensor_by_name("y:0") is y
    assert [op.name for op in graph.get_operations()] == ["x", "y"]
    assert b"Identity" in y.op.node_def
    with pytest.raises(KeyError):
        graph.get_operation_by_name("missing")
    with pytest.raises(KeyError, match="only has 1 outputs"):
        graph.get_tensor_by_name("y:3")


def test_unique_names_as_tensorflow(graph):
    a = mf.constant(1.0)
    b = mf.constant(2.0)
    c = mf.constant(3.0, name="Const")
    assert [a.op.name, b.op.name, c.op.name] == ["Const", "Const_1",
                                                 "Const_2"]


def test_name_scope_nests_and_uniquifies():
    with mf.name_scope("layer") as scope:
        assert scope == "layer/"
        a = mf.constant(1.0, name="w")
        with mf.name_scope("inner"):
            b = mf.constant(1.0, name="w")
    with mf.name_scope("layer") as scope2:
        c = mf.constant(1.0, name="w")
    with mf.name_scope("layer/"):  # re-entered as is
        d = mf.constant(1.0, name="v")
    assert a.op.name == "layer/w"
    assert b.op.name == "layer/inner/w"
    assert scope2 == "layer_1/"
    assert c.op.name == "layer_1/w"
    assert d.op.name == "layer/v"
    with pytest.raises(ValueError, match="not a valid scope name"):
        with mf.name_scope("bad name!"):
            pass


def test_converted_inputs_go_inside_the_ops_scope():
    x = mf.placeholder(mf.float32, name="x")
    y = x + 1.0
    assert y.op.name == "add"
    assert y.op.inputs[1].op.name == "add/y"


def test_control_dependencies_nest_and_clear():
    a = mf.constant(1.0, name="a")
    b = mf.constant(2.0, name="b")
    with mf.control_dependencies([a]):
        c = mf.identity(b, name="c")
        with mf.control_dependencies([b.op]):
            d = mf.identity(b, name="d")
        with mf.control_dependencies(None):
            e = mf.identity(b, name="e")
    f = mf.identity(b, name="f")
    assert c.op.control_inputs == [a.op]
    assert set(op.name for op in d.op.control_inputs) == {"a", "b"}
    assert e.op.control_inputs == []
    assert f.op.control_inputs == []
    with pytest.raises(TypeError, match="Control input must be"):
        with mf.control_dependencies([1]):
            pass


def test_control_dependency_orders_a_run():
    # A stateful op: the variable is assigned before the read runs.
    v = mf.ops.var_handle_op(dtype=mf.float32, shape=[], shared_name="v")
    assign = mf.ops.assign_variable_op(v, 5.0)
    with mf.control_dependencies([assign]):
        read = mf.ops.read_variable_op(v, dtype=mf.float32)
    with mf.Session() as sess:
        assert sess.run(read) == 5.0


def test_device_scopes():
    with mf.device("/device:CPU:0"):
        a = mf.constant(1.0)
        with mf.device(None):
            b = mf.constant(1.0)
    c = mf.constant(1.0)
    assert a.device == "/device:CPU:0"
    assert b.device == ""
    assert c.device == ""
    with mf.device("/device:CPU:0"):
        y = a + 1.0
    with mf.Session() as sess:
        assert sess.run(y) == 2.0


def test_graph_as_default_and_separate_graphs(graph):
    g2 = mf.Graph()
    with g2.as_default():
        assert mf.get_default_graph() is g2
        a = mf.constant(1.0)
    assert mf.get_default_graph() is graph
    assert a.graph is g2
    b = mf.constant(1.0)
    with pytest.raises(ValueError, match="same graph"):
        mf.ops.add_v2(a, b)


def test_graph_def_round_trip(graph):
    x = mf.placeholder(mf.float32, [2], name="x")
    y = mf.identity(x * 2.0, name="y")  # the 2.0 is "mul/y"
    assert y.op.inputs[0].op.inputs[1].op.name == "mul/y"
    gd = graph.as_graph_def()
    assert isinstance(gd, bytes)
    names = [n.name for n in gd.node]
    assert "x" in names and "y" in names
    assert [n.op for n in gd.node if n.name == "y"] == ["Identity"]

    g2 = mf.Graph()
    with g2.as_default():
        assert mf.import_graph_def(gd) is None
        x2, y2 = mf.import_graph_def(gd, name="again",
                                     return_elements=["x:0", "y:0"])
        assert g2.get_operation_by_name("import/y").type == "Identity"
        assert y2.name == "again/y:0"
        z = mf.import_graph_def(gd.SerializeToString(), name="",
                                return_elements=["y"])[0]
        assert z.name == "y"
        # Imported names are taken: a new op does not reuse them.
        assert mf.constant(1.0, name="y").op.name == "y_1"
        with mf.Session() as sess:
            assert list(sess.run(y2, {x2: [1, 2]})) == [2, 4]


def test_import_text_format_and_bad_graph_def():
    text = """
      node { name: "a" op: "Const"
             attr { key: "dtype" value { type: DT_INT32 } }
             attr { key: "value" value { tensor { dtype: DT_INT32
               tensor_shape { } int_val: 7 } } } }
    """
    (a,) = mf.import_graph_def(text, name="", return_elements=["a:0"])
    assert a.dtype == mf.int32
    with pytest.raises(ValueError, match="Could not parse the GraphDef"):
        mf.import_graph_def(b"\xff\xff not a graph", name="bad")


def test_tensor_refuses_bool_and_iteration():
    x = mf.placeholder(mf.float32)
    with pytest.raises(TypeError, match="Python `bool`"):
        bool(x)
    with pytest.raises(TypeError):
        iter(x)


def test_reset_default_graph():
    mf.constant(1.0)
    with pytest.raises(AssertionError):
        mf.reset_default_graph()  # inside a graph.as_default() block
