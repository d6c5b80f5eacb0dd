"""import_graph_def with TensorFlow's input_map and return_elements."""
import numpy as np
import pytest

import minflow as mf

# y = x * 2 on a float[2] placeholder x; z = y + 1.
_GRAPH = """
  node { name: "x" op: "Placeholder"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 2 } } } } }
  node { name: "two" op: "Const"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT
           tensor_shape { } float_val: 2 } } } }
  node { name: "y" op: "Mul" input: "x" input: "two"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "one" op: "Const"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT
           tensor_shape { } float_val: 1 } } } }
  node { name: "z" op: "AddV2" input: "y" input: "one"
         attr { key: "T" value { type: DT_FLOAT } } }
"""


def test_mapping_a_placeholder_to_a_constant_changes_the_result():
    c = mf.constant([3.0, 4.0], name="c")
    z, y_op = mf.import_graph_def(_GRAPH, input_map={"x:0": c},
                                  return_elements=["z:0", "y"])
    assert isinstance(z, mf.Tensor) and z.name == "import/z:0"
    assert isinstance(y_op, mf.Operation) and y_op.name == "import/y"
    assert y_op.inputs[0] is c
    with mf.Session() as sess:
        np.testing.assert_array_equal(sess.run(z), [7.0, 9.0])


def test_unmapped_import_still_needs_its_feed():
    (x, z) = mf.import_graph_def(_GRAPH, return_elements=["x:0", "z:0"],
                                 name="plain")
    with mf.Session() as sess:
        np.testing.assert_array_equal(sess.run(z, {x: [1.0, 2.0]}), [3, 5])


def test_a_bare_name_key_means_output_zero_and_maps_mid_graph():
    # Mapping "y" (an inner tensor) to a placeholder of the outer graph.
    p = mf.placeholder(mf.float32, [2], name="p")
    (z,) = mf.import_graph_def(_GRAPH, input_map={"y": p},
                               return_elements=["z:0"], name="")
    assert z.op.inputs[0] is p
    # A mapped key returns the tensor it was mapped to, as TensorFlow does.
    (mapped,) = mf.import_graph_def(_GRAPH, input_map={"y:0": p},
                                    return_elements=["y:0"], name="again")
    assert mapped is p
    with mf.Session() as sess:
        np.testing.assert_array_equal(sess.run(z, {p: [5.0, 6.0]}), [6, 7])


def test_a_key_not_in_the_graph_def_is_an_error_naming_it():
    c = mf.constant([3.0, 4.0])
    with pytest.raises(ValueError,
                       match=r"not found in graph_def: \[nope:0\]"):
        mf.import_graph_def(_GRAPH, input_map={"nope:0": c})
    with pytest.raises(ValueError,
                       match=r"not found in graph_def: \[x:1, q:0\]"):
        mf.import_graph_def(_GRAPH, input_map={"x:1": c, "q": c})


def test_bad_mappings_and_return_elements():
    c = mf.constant([3.0, 4.0])
    i = mf.constant([1, 2])
    # As in TensorFlow, what the importer refuses is a ValueError (whose
    # cause is the InvalidArgumentError).
    with pytest.raises(ValueError, match="int32") as e:
        mf.import_graph_def(_GRAPH, input_map={"x:0": i}, name="bad1")
    assert isinstance(e.value.__cause__, mf.errors.InvalidArgumentError)
    with pytest.raises(ValueError,
                       match="Requested return tensor 'w:0' not found"):
        mf.import_graph_def(_GRAPH, return_elements=["w:0"], name="bad2")
    with pytest.raises(ValueError,
                       match="Requested return node 'w' not found"):
        mf.import_graph_def(_GRAPH, return_elements=["w"], name="bad3")
    with pytest.raises(TypeError, match="must be Tensors"):
        mf.import_graph_def(_GRAPH, input_map={"x:0": [1.0, 2.0]})
    with pytest.raises(ValueError, match="control-input keys"):
        mf.import_graph_def(_GRAPH, input_map={"^x": c})
    # Failed imports left nothing behind.
    names = [op.name for op in mf.get_default_graph().get_operations()]
    assert not any(n.startswith("bad") for n in names)
    other = mf.Graph()
    with other.as_default():
        elsewhere = mf.constant([1.0, 2.0])
    with pytest.raises(ValueError, match="not an element of this graph"):
        mf.import_graph_def(_GRAPH, input_map={"x:0": elsewhere})
