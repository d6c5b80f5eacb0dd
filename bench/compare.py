#!/usr/bin/env python3
"""Compares two benchmark results and flags regressions beyond a noise threshold.

Usage: bench/compare.py OLD NEW [--threshold 0.10] [--metric real_time|cpu_time]

OLD and NEW are each a JSON file or a directory of them, as
scripts/run_benchmarks.sh writes: Google Benchmark output
(--benchmark_format=json) and `minflow bench --json` output. Benchmarks are
matched by name (for `minflow bench` files: the file name plus each figure).

Times (real_time or cpu_time, minflow bench latencies and init times) regress
when they grow; rates (bytes_per_second, items_per_second, runs_per_s) regress
when they shrink. A change counts when it is beyond the threshold (default
10%): shared machines are noisy, so compare ratios against same-run
references when in doubt (bench/README.md).

Exit codes: 0 no regression, 1 at least one regression, 2 usage error or an
unreadable file.
"""
import argparse
import json
import os
import sys

# minflow bench --json figures: (json path, is a rate).
MINFLOW_BENCH_FIGURES = [
    (("init_ms",), False),
    (("first_run_ms",), False),
    (("latency_us", "median"), False),
    (("latency_us", "p90"), False),
    (("runs_per_s",), True),
    (("peak_bytes",), False),
]
RATE_COUNTERS = ("bytes_per_second", "items_per_second")
TIME_UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def load_figures(path, metric):
    """Returns {name: (value, is_rate)} from a JSON file or a directory."""
    if os.path.isdir(path):
        files = sorted(
            os.path.join(path, f) for f in os.listdir(path) if f.endswith(".json")
        )
    else:
        files = [path]
    figures = {}
    for file in files:
        with open(file, encoding="utf-8") as f:
            try:
                data = json.load(f)
            except json.JSONDecodeError as e:
                raise ValueError(f"{file}: not valid JSON: {e}") from e
        if not isinstance(data, dict):
            raise ValueError(f"{file}: not a benchmark result (expected an object)")
        if "benchmarks" in data:
            for b in data["benchmarks"]:
                if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "mean":
                    continue
                if "error_occurred" in b and b["error_occurred"]:
                    continue
                name = b["name"]
                scale = TIME_UNIT_NS.get(b.get("time_unit", "ns"), 1.0)
                figures[name] = (float(b[metric]) * scale, False)
                for counter in RATE_COUNTERS:
                    if counter in b:
                        figures[f"{name} [{counter}]"] = (float(b[counter]), True)
        elif "latency_us" in data:
            stem = os.path.splitext(os.path.basename(file))[0]
            for keys, is_rate in MINFLOW_BENCH_FIGURES:
                value = data
                for k in keys:
                    value = value.get(k) if isinstance(value, dict) else None
                if isinstance(value, (int, float)):
                    figures[f"{stem}: {'.'.join(keys)}"] = (float(value), is_rate)
        else:
            raise ValueError(
                f"{file}: neither Google Benchmark JSON nor minflow bench JSON"
            )
    return figures


def compare(old, new, threshold):
    """Yields (name, old, new, change, verdict) for names in both."""
    for name in sorted(set(old) & set(new)):
        old_value, is_rate = old[name]
        new_value, _ = new[name]
        if old_value == 0:
            change = 0.0 if new_value == 0 else float("inf")
        else:
            change = new_value / old_value - 1.0
        worse = -change if is_rate else change
        if worse > threshold:
            verdict = "REGRESSION"
        elif worse < -threshold:
            verdict = "improved"
        else:
            verdict = "same"
        yield name, old_value, new_value, change, verdict


def main(argv):
    parser = argparse.ArgumentParser(
        description="Compare two benchmark results; flag regressions.")
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--threshold", type=float, default=0.10,
                        help="relative change counted as real (default 0.10)")
    parser.add_argument("--metric", choices=("real_time", "cpu_time"),
                        default="real_time")
    args = parser.parse_args(argv)
    if args.threshold < 0:
        parser.error("--threshold must be >= 0")
    try:
        old = load_figures(args.old, args.metric)
        new = load_figures(args.new, args.metric)
    except (OSError, ValueError, KeyError) as e:
        print(f"compare: {e}", file=sys.stderr)
        return 2
    rows = list(compare(old, new, args.threshold))
    if not rows:
        print("compare: no benchmark appears in both results", file=sys.stderr)
        return 2
    width = max(len(r[0]) for r in rows)
    regressions = 0
    for name, old_value, new_value, change, verdict in rows:
        regressions += verdict == "REGRESSION"
        print(f"{verdict:<10}  {name:<{width}}  {old_value:14.4g} -> "
              f"{new_value:14.4g}  {change * 100:+7.1f}%")
    only_old = sorted(set(old) - set(new))
    only_new = sorted(set(new) - set(old))
    for name in only_old:
        print(f"{'missing':<10}  {name}  (only in {args.old})")
    for name in only_new:
        print(f"{'new':<10}  {name}  (only in {args.new})")
    print(f"{len(rows)} compared, {regressions} regression(s) beyond "
          f"{args.threshold * 100:.0f}%")
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
