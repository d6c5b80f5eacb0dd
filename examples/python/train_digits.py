"""Trains the digits MLP (examples/graphs/digits_mlp.pbtxt's 35-32-10
network) from random initialisation with Adam, from Python: resource
variables, minflow.gradients for the backward pass, ResourceApplyAdam for
the updates. It then reads a held-out set of noisy glyphs and checks that
it does at least as well as the bundled, already trained graph.

The same seed gives the same run: the data and the initial weights come
from numpy's RandomState, and the graph computes the same way every time.

Usage: python3 examples/python/train_digits.py [GRAPHS_DIR] [--steps N]
"""
import os
import sys

import numpy as np

import minflow as mf

GLYPHS = [
    ["01110", "10001", "10011", "10101", "11001", "10001", "01110"],
    ["00100", "01100", "00100", "00100", "00100", "00100", "01110"],
    ["01110", "10001", "00001", "00010", "00100", "01000", "11111"],
    ["11111", "00010", "00100", "00010", "00001", "10001", "01110"],
    ["00010", "00110", "01010", "10010", "11111", "00010", "00010"],
    ["11111", "10000", "11110", "00001", "00001", "10001", "01110"],
    ["00110", "01000", "10000", "11110", "10001", "10001", "01110"],
    ["11111", "00001", "00010", "00100", "01000", "01000", "01000"],
    ["01110", "10001", "10001", "01110", "10001", "10001", "01110"],
    ["01110", "10001", "10001", "01111", "00001", "00010", "01100"],
]
PIXELS = np.array([[float(c) for row in g for c in row] for g in GLYPHS],
                  dtype=np.float32)
SEED = 7
BATCH = 64
LEARNING_RATE = 0.01
BETA1, BETA2, EPSILON = 0.9, 0.999, 1e-8


def glyph_batch(rng, n):
    """`n` glyphs with 0..3 pixels flipped: images [n,35], labels [n]."""
    labels = rng.randint(0, 10, size=n).astype(np.int32)
    images = PIXELS[labels].copy()
    for i in range(n):
        for p in rng.randint(0, 35, size=rng.randint(0, 4)):
            images[i, p] = 1.0 - images[i, p]
    return images, labels


def variable(name, value):
    """A resource variable: (handle, its initialiser, a read)."""
    with mf.name_scope(name):
        handle = mf.ops.var_handle_op(dtype=mf.float32, shape=value.shape,
                                      name="var")
        init = mf.ops.assign_variable_op(handle, value, name="init")
        read = mf.ops.read_variable_op(handle, dtype=mf.float32, name="read")
    return handle, init, read


def build(rng):
    """The network, its loss and an Adam step; returns a dict of tensors
    and operations."""
    shapes = [("w1", (35, 32)), ("b1", (32,)), ("w2", (32, 10)),
              ("b2", (10,))]
    handles, inits, reads = [], [], []
    for name, shape in shapes:
        if name.startswith("w"):
            value = rng.normal(0, np.sqrt(2.0 / shape[0]), shape)
        else:
            value = np.zeros(shape)
        h, i, r = variable(name, value.astype(np.float32))
        handles.append(h)
        inits.append(i)
        reads.append(r)
    w1, b1, w2, b2 = reads
    images = mf.placeholder(mf.float32, [None, 35], name="images")
    labels = mf.placeholder(mf.int32, [None], name="labels")
    hidden = mf.ops.relu(mf.ops.bias_add(mf.matmul(images, w1), b1))
    logits = mf.ops.bias_add(mf.matmul(hidden, w2), b2)
    xent = mf.ops.sparse_softmax_cross_entropy_with_logits(logits, labels)
    loss = mf.ops.mean(xent[0], [0], name="loss")
    digit = mf.argmax(logits, axis=1, name="digit")

    # Adam, as tf.compat.v1.train.AdamOptimizer does it: slots m and v per
    # variable, the betas' powers in two more variables, multiplied after
    # every update.
    grads = mf.gradients(loss, reads)
    _, init1, beta1_power = variable("beta1_power", np.float32(BETA1))
    _, init2, beta2_power = variable("beta2_power", np.float32(BETA2))
    power_handles = [beta1_power.op.inputs[0], beta2_power.op.inputs[0]]
    inits += [init1, init2]
    updates = []
    for (name, shape), handle, grad in zip(shapes, handles, grads):
        m, init_m, _ = variable(name + "_m", np.zeros(shape, np.float32))
        v, init_v, _ = variable(name + "_v", np.zeros(shape, np.float32))
        inits += [init_m, init_v]
        updates.append(
            mf.ops.resource_apply_adam(handle, m, v, beta1_power,
                                       beta2_power, LEARNING_RATE, BETA1,
                                       BETA2, EPSILON, grad))
    with mf.control_dependencies(updates):
        step = [
            mf.ops.assign_variable_op(h, mf.ops.mul(p, beta))
            for h, p, beta in zip(power_handles, [beta1_power, beta2_power],
                                  [BETA1, BETA2])
        ]
    return dict(images=images, labels=labels, loss=loss, digit=digit,
                init=inits, train=step, reads=reads)


def main(argv):
    steps = 2000
    if "--steps" in argv:
        i = argv.index("--steps")
        steps = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    graphs = argv[1] if len(argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "graphs")

    rng = np.random.RandomState(SEED)
    g = mf.Graph()
    with g.as_default():
        model = build(rng)
    test_images, test_labels = glyph_batch(np.random.RandomState(12345), 2000)

    with mf.Session(graph=g) as sess:
        sess.run(model["init"])
        for step in range(1, steps + 1):
            images, labels = glyph_batch(rng, BATCH)
            feed = {model["images"]: images, model["labels"]: labels}
            sess.run(model["train"], feed)
            if step % 500 == 0:
                print("step %4d: loss %.4f" %
                      (step, sess.run(model["loss"], feed)))
        digits = sess.run(model["digit"], {model["images"]: test_images})
    trained = float(np.mean(digits == test_labels))

    bundled = mf.Graph()
    with bundled.as_default():
        with open(os.path.join(graphs, "digits_mlp.pbtxt")) as f:
            mf.import_graph_def(f.read(), name="")
    with mf.Session(graph=bundled) as sess:
        want = sess.run("digit:0", {"x:0": test_images})
    reference = float(np.mean(want == test_labels))
    print("held-out accuracy: trained %.4f, bundled graph %.4f" %
          (trained, reference))
    if trained < reference:
        sys.exit("training did not reach the bundled graph's accuracy")
    print("trained to the bundled graph's accuracy")


if __name__ == "__main__":
    main(sys.argv)
