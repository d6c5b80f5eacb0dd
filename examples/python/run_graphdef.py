"""Runs a GraphDef file (binary .pb or text .pbtxt) and prints the fetched
tensors, as `minflow run` does.

Usage: python3 examples/python/run_graphdef.py GRAPH --fetch NAME[:K] ...
           [--feed NAME[:K]=FILE.npy ...]
Example:
  python3 examples/python/run_graphdef.py examples/graphs/digits_mlp.pbtxt \\
      --feed x=examples/graphs/digits_sample.npy --fetch digit
"""
import argparse

import numpy as np

import minflow as mf


def tensor_name(name):
    return name if ":" in name else name + ":0"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("graph")
    p.add_argument("--fetch", action="append", required=True)
    p.add_argument("--feed", action="append", default=[])
    args = p.parse_args()

    with open(args.graph, "rb") as f:
        data = f.read()
    g = mf.Graph()
    with g.as_default():
        # Text or binary: the C API tells them apart.
        mf.import_graph_def(data, name="")
    feeds = {}
    for item in args.feed:
        name, path = item.split("=", 1)
        feeds[tensor_name(name)] = np.load(path)
    fetches = [tensor_name(n) for n in args.fetch]
    with mf.Session(graph=g) as sess:
        try:
            values = sess.run(fetches, feeds)
        except mf.errors.OpError as e:
            raise SystemExit("%s: %s" % (type(e).__name__, e.message))
    for name, value in zip(args.fetch, values):
        print("%s: %s %s" % (name, value.dtype, list(value.shape)))
        print(value)


if __name__ == "__main__":
    main()
