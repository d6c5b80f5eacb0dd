"""Builds the digits MLP (examples/graphs/digits_mlp.pbtxt) with the Python
API and runs it on the ten sample glyphs.

The weights are the bundled graph's: it is imported into a scratch graph
and its four Consts are fetched as numpy arrays. The network is then built
op by op (matmul, bias_add, relu, softmax, argmax) under name scopes, and
its answer is checked against the bundled graph's own.

Usage: python3 examples/python/digits_mlp.py [GRAPHS_DIR]
"""
import os
import sys

import numpy as np

import minflow as mf

graphs = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "graphs")
with open(os.path.join(graphs, "digits_mlp.pbtxt")) as f:
    bundled_text = f.read()
glyphs = np.load(os.path.join(graphs, "digits_sample.npy"))

# The trained weights, from the bundled graph.
bundled = mf.Graph()
with bundled.as_default():
    mf.import_graph_def(bundled_text, name="")
with mf.Session(graph=bundled) as sess:
    w1, b1, w2, b2 = sess.run(["w1:0", "b1:0", "w2:0", "b2:0"])
    want = sess.run("digit:0", {"x:0": glyphs})

# The same network, built with the Python API.
g = mf.Graph()
with g.as_default():
    x = mf.placeholder(mf.float32, [None, 35], name="x")
    with mf.name_scope("dense1"):
        hidden = mf.ops.relu(mf.ops.bias_add(mf.matmul(x, w1), b1))
    with mf.name_scope("dense2"):
        logits = mf.ops.bias_add(mf.matmul(hidden, w2), b2)
    probs = mf.ops.softmax(logits, name="probs")
    digit = mf.argmax(probs, axis=1, name="digit")

print("probs:", probs.shape, probs.dtype.name, " digit:", digit.shape,
      digit.dtype.name)
with mf.Session(graph=g) as sess:
    got, p = sess.run([digit, probs], {x: glyphs})
print("digits:", " ".join(str(d) for d in got))
print("confidence:", " ".join("%.2f" % v for v in p.max(axis=1)))
if not np.array_equal(got, want):
    sys.exit("the built network disagrees with the bundled graph: %s vs %s"
             % (got, want))
print("same answer as the bundled graph")
