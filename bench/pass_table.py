#!/usr/bin/env python3
"""What each optimisation pass is worth: node counts and latency per graph
with every pass on, then with each pass off in turn.

Runs `minflow bench --json` once with all passes and once per pass with
`--disable PASS`, interleaved round by round in a shuffled order so that
neither a change in machine load nor being first touches one column more, and prints a Markdown table per graph:
the nodes left after the pipeline and the median latency, as a ratio to
all passes on (in the same round). Graphs come from the command line and,
with --peers, from the peer harness's manifest (../shared/peers).

    bench/pass_table.py --minflow build/release/tools/minflow \\
        examples/graphs/digits_mlp.pbtxt \\
        --peers /work/shared/peers/graphs/manifest.json --threads 1
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile


def run_bench(minflow, graph, extra, disabled, args, json_path):
    cmd = [minflow, "bench", graph, "--threads", str(args.threads),
           "--inter-op", "1", "--min-time", str(args.min_time),
           "--json", json_path] + extra
    if disabled:
        cmd += ["--disable", disabled]
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, check=False)
    if done.returncode != 0:
        # A graph may need a pass (functions need lower_functional_ops).
        if disabled:
            return None, None
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stderr}")
    with open(json_path, encoding="utf-8") as f:
        result = json.load(f)
    ran = [p for p in result["passes"] if p.get("ran")]
    nodes = ran[-1]["nodes_after"] if ran else None
    return nodes, result["latency_us"]["median"]


def pass_names(minflow):
    out = subprocess.run([minflow, "optimize", "--passes"],
                         stdout=subprocess.PIPE, text=True, check=True).stdout
    names = []
    for line in out.splitlines():
        words = line.split()
        if words and words[0].replace("_", "").isalpha() and \
                words[0] == words[0].lower():
            names.append(words[0])
    if not names:
        raise RuntimeError("minflow optimize --passes listed no passes:\n" + out)
    return names


def peer_graphs(manifest_path):
    with open(manifest_path, encoding="utf-8") as f:
        manifest = json.load(f)
    root = os.path.dirname(os.path.dirname(os.path.abspath(manifest_path)))
    graphs = []
    for w in manifest["workloads"]:
        extra = []
        for spec in w["inputs"]:
            extra += ["--shape",
                      spec["name"] + "=" + ",".join(map(str, spec["shape"]))]
        for out in w["outputs"]:
            extra += ["--fetch", out["name"]]
        graphs.append((w["name"], os.path.join(root, w["pbtxt"]), extra))
    return graphs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("graphs", nargs="*", help="GraphDef files")
    parser.add_argument("--minflow", required=True)
    parser.add_argument("--peers", help="the peer harness's manifest.json")
    parser.add_argument("--only", action="append", default=[],
                        help="peer workloads to include (repeatable)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--min-time", type=float, default=0.5)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    graphs = [(os.path.basename(g), g, []) for g in args.graphs]
    if args.peers:
        graphs += [g for g in peer_graphs(args.peers)
                   if not args.only or g[0] in args.only]
    if not graphs:
        parser.error("no graphs: name files or --peers")
    passes = pass_names(args.minflow)
    columns = [None] + passes

    with tempfile.TemporaryDirectory() as tmp:
        json_path = os.path.join(tmp, "bench.json")
        for name, path, extra in graphs:
            nodes = {}
            ratios = {c: [] for c in columns}
            medians = {c: [] for c in columns}
            shuffle = random.Random(len(name))
            for _ in range(args.rounds):
                order = list(columns)
                shuffle.shuffle(order)
                this_round = {}
                for c in order:
                    n, median = run_bench(args.minflow, path, extra, c, args,
                                          json_path)
                    nodes[c] = n
                    if median is not None:
                        this_round[c] = median
                        medians[c].append(median)
                for c, median in this_round.items():
                    ratios[c].append(median / this_round[None])
            print(f"\n{name} ({args.threads} intra-op thread"
                  f"{'s' if args.threads != 1 else ''}, medians of "
                  f"{args.rounds} rounds)\n")
            print("| passes | nodes run | median latency | × all on |")
            print("|---|---|---|---|")
            for c in columns:
                label = "all on" if c is None else f"`{c}` off"
                if not medians[c]:
                    print(f"| {label} | fails without it | | |")
                    continue
                print(f"| {label} | {nodes[c]} | "
                      f"{statistics.median(medians[c]):.1f} µs | "
                      f"{statistics.median(ratios[c]):.2f} |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
