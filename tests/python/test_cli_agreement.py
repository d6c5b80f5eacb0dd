"""The package gives what `minflow run` gives for the same GraphDef: the
bundled digits MLP, and a graph built in Python (as_graph_def) that uses a
custom-op library."""
import os
import re
import subprocess

import numpy as np

import minflow as mf


def _cli_run(cli, graph_path, feeds, fetches, out_dir, load=None):
    cmd = [cli, "run", graph_path, "--out-dir", str(out_dir)]
    if load:
        cmd += ["--load", load]
    for name, path in feeds.items():
        cmd += ["--feed", "%s=@%s" % (name, path)]
    for f in fetches:
        cmd += ["--fetch", f]
    subprocess.run(cmd, check=True, capture_output=True)
    return [
        np.load(
            os.path.join(str(out_dir),
                         re.sub(r"[^A-Za-z0-9_.-]", "_", f) + ".npy"))
        for f in fetches
    ]


def test_digits_mlp_matches_the_cli(cli, source_dir, tmp_path):
    graph_path = os.path.join(source_dir, "examples", "graphs",
                              "digits_mlp.pbtxt")
    sample = os.path.join(source_dir, "examples", "graphs",
                          "digits_sample.npy")
    fetches = ["probs:0", "digit:0", "dense1/Relu:0"]
    want = _cli_run(cli, graph_path, {"x": sample}, fetches, tmp_path)
    with open(graph_path) as f:
        mf.import_graph_def(f.read(), name="")
    with mf.Session() as sess:
        got = sess.run(fetches, {"x:0": np.load(sample)})
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(got[1], np.arange(10))


def test_python_built_graph_matches_the_cli(cli, zero_out_library, graph,
                                            tmp_path):
    zero_out = mf.load_op_library(zero_out_library).zero_out
    x = mf.placeholder(mf.float32, [None, 4], name="x")
    w = mf.constant(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
    y = mf.ops.relu(x @ w + 0.25, name="y")
    z = mf.identity(zero_out(mf.reshape(y, [-1]), preserve_index=1),
                    name="z")
    s = mf.identity(y[1:, ::2] * 2.0, name="s")
    del z, s
    graph_path = tmp_path / "built.pb"
    graph_path.write_bytes(graph.as_graph_def())
    feed = np.arange(8, dtype=np.float32).reshape(2, 4) / 7.0
    np.save(str(tmp_path / "x.npy"), feed)
    fetches = ["y:0", "z:0", "s:0"]
    want = _cli_run(cli, str(graph_path), {"x": tmp_path / "x.npy"}, fetches,
                    tmp_path, load=zero_out_library)
    with mf.Session() as sess:
        got = sess.run(fetches, {x: feed})
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)
