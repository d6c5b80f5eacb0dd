"""Each example in examples/python runs and prints what it should."""
import os
import subprocess
import sys


def _run(source_dir, script, *args):
    path = os.path.join(source_dir, "examples", "python", script)
    r = subprocess.run([sys.executable, path] + list(args), cwd=source_dir,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_digits_mlp_example(source_dir):
    out = _run(source_dir, "digits_mlp.py")
    assert "digits: 0 1 2 3 4 5 6 7 8 9" in out
    assert "same answer as the bundled graph" in out


def test_run_graphdef_example(source_dir):
    out = _run(source_dir, "run_graphdef.py",
               "examples/graphs/digits_mlp.pbtxt", "--feed",
               "x=examples/graphs/digits_sample.npy", "--fetch", "digit")
    assert "digit: int64 [10]\n[0 1 2 3 4 5 6 7 8 9]" in out


def test_zero_out_example(source_dir, zero_out_library):
    out = _run(source_dir, "zero_out.py", zero_out_library)
    assert "zero_out([5, 4, 3, 2, 1]) = [5 0 0 0 0]" in out
    assert "= [0.  2.5 0. ]" in out
    assert "an empty vector: InvalidArgumentError" in out


def test_train_digits_example(source_dir):
    out = _run(source_dir, "train_digits.py")
    assert "held-out accuracy: trained" in out
    assert "trained to the bundled graph's accuracy" in out
