"""_c.py: its declarations agree with the C headers, and a library that
cannot be found is a clear ImportError."""
import os
import re
import subprocess
import sys

from minflow import _c


def _top_level_params(text, start):
    """The parameter list starting at text[start] == '(': its top-level
    comma-separated parts."""
    depth, parts, cur = 0, [], ""
    for ch in text[start:]:
        if ch == "(":
            depth += 1
            if depth == 1:
                continue
        elif ch == ")":
            depth -= 1
            if depth == 0:
                break
        if ch == "," and depth == 1:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p.strip() for p in parts if p.strip() and p.strip() != "void"]


def _header_functions(source_dir):
    found = {}
    folder = os.path.join(source_dir, "include", "minflow", "c")
    for name in ("c_api.h", "mf_status.h", "mf_tensor.h", "mf_datatype.h"):
        with open(os.path.join(folder, name)) as f:
            text = f.read()
        for m in re.finditer(r"MF_CAPI_EXPORT extern [^;(]*?\b(MF_\w+)\s*\(",
                             text):
            found[m.group(1)] = len(_top_level_params(text, m.end() - 1))
    return found


def test_every_declaration_matches_a_header_prototype(source_dir):
    headers = _header_functions(source_dir)
    declared = {}
    for m in re.finditer(r"\b(MF_\w+)\s*\(", _c.CDEF):
        if m.group(1) in ("MF_Output", "MF_Input"):
            continue
        declared[m.group(1)] = len(_top_level_params(_c.CDEF, m.end() - 1))
    assert len(declared) > 60
    for name, n in declared.items():
        assert name in headers, "%s is not in include/minflow/c" % name
        assert headers[name] == n, "%s: %d parameters in the header, %d in " \
            "_c.py" % (name, headers[name], n)


def test_a_missing_library_is_a_clear_import_error(tmp_path):
    env = dict(os.environ, MINFLOW_LIBRARY=str(tmp_path / "libnothing.so"))
    r = subprocess.run([sys.executable, "-c", "import minflow"], env=env,
                       capture_output=True, text=True)
    assert r.returncode != 0
    assert "cannot load libminflow" in r.stderr
    assert "MINFLOW_LIBRARY" in r.stderr
