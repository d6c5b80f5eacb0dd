"""Per-call overhead of ctypes, cffi (ABI mode) and a pybind11 module over
minflow's C API: the measurement behind python/README.md's choice of cffi.

Usage: python3 bench/python/ffi_choice.py LIBMINFLOW [INCLUDE_DIR]

Times a trivial call (MF_OperationNumOutputs) and a one-node MF_SessionRun
(Identity of a fed float scalar, feeds and fetches prepared once) through
each binding. The pybind11 module is compiled into a temporary folder when
pybind11's headers and Python.h are present, else left out.
"""
import ctypes
import os
import subprocess
import sys
import sysconfig
import tempfile
import timeit

import cffi

LIB = sys.argv[1]
INCLUDE = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
    os.path.dirname(__file__), "..", "..", "include")

CDEF = """
typedef struct MF_Status MF_Status; typedef struct MF_Graph MF_Graph;
typedef struct MF_Operation MF_Operation; typedef struct MF_Session MF_Session;
typedef struct MF_Tensor MF_Tensor;
typedef struct MF_OperationDescription MF_OperationDescription;
typedef struct MF_Output { MF_Operation* oper; int index; } MF_Output;
MF_Status* MF_NewStatus(void); int MF_GetCode(const MF_Status*);
MF_Graph* MF_NewGraph(void);
MF_OperationDescription* MF_NewOperation(MF_Graph*, const char*, const char*);
void MF_SetAttrType(MF_OperationDescription*, const char*, int);
void MF_AddInput(MF_OperationDescription*, MF_Output);
MF_Operation* MF_FinishOperation(MF_OperationDescription*, MF_Status*);
int MF_OperationNumOutputs(MF_Operation*);
MF_Session* MF_NewSession(MF_Graph*, void*, MF_Status*);
MF_Tensor* MF_AllocateTensor(int, const int64_t*, int, size_t, MF_Status*);
void MF_DeleteTensor(MF_Tensor*);
void MF_SessionRun(MF_Session*, void*, const MF_Output*, MF_Tensor* const*,
                   int, const MF_Output*, MF_Tensor**, int, void*, int,
                   void*, MF_Status*);
"""

PYBIND_SRC = r"""
#include <pybind11/pybind11.h>
#include "minflow/c/c_api.h"
namespace py = pybind11;
PYBIND11_MODULE(mf_pyb, m) {
  m.def("num_outputs", [](uintptr_t op) {
    return MF_OperationNumOutputs(reinterpret_cast<MF_Operation*>(op));
  });
  // One run with one feed and one fetch, as the package's run would call it.
  m.def("run", [](uintptr_t session, uintptr_t x, uintptr_t y,
                  uintptr_t feed, uintptr_t status) {
    MF_Output in{reinterpret_cast<MF_Operation*>(x), 0};
    MF_Output out{reinterpret_cast<MF_Operation*>(y), 0};
    MF_Tensor* f = reinterpret_cast<MF_Tensor*>(feed);
    MF_Tensor* r = nullptr;
    MF_SessionRun(reinterpret_cast<MF_Session*>(session), nullptr, &in, &f, 1,
                  &out, &r, 1, nullptr, 0, nullptr,
                  reinterpret_cast<MF_Status*>(status));
    MF_DeleteTensor(r);
  });
}
"""


def per_call_us(fn, number):
    best = min(timeit.repeat(fn, number=number, repeat=5))
    return best / number * 1e6


def main():
    ffi = cffi.FFI()
    ffi.cdef(CDEF)
    C = ffi.dlopen(LIB)
    status = C.MF_NewStatus()
    g = C.MF_NewGraph()
    d = C.MF_NewOperation(g, b"Placeholder", b"x")
    C.MF_SetAttrType(d, b"dtype", 1)
    x = C.MF_FinishOperation(d, status)
    d = C.MF_NewOperation(g, b"Identity", b"y")
    C.MF_AddInput(d, ffi.new("MF_Output*", [x, 0])[0])
    y = C.MF_FinishOperation(d, status)
    session = C.MF_NewSession(g, ffi.NULL, status)
    feed = C.MF_AllocateTensor(1, ffi.NULL, 0, 4, status)
    assert C.MF_GetCode(status) == 0

    rows = []
    # cffi, ABI mode.
    f_in = ffi.new("MF_Output[1]", [[x, 0]])
    f_out = ffi.new("MF_Output[1]", [[y, 0]])
    f_vals = ffi.new("MF_Tensor*[1]", [feed])
    f_res = ffi.new("MF_Tensor*[1]")

    def cffi_run():
        C.MF_SessionRun(session, ffi.NULL, f_in, f_vals, 1, f_out, f_res, 1,
                        ffi.NULL, 0, ffi.NULL, status)
        C.MF_DeleteTensor(f_res[0])

    rows.append(("cffi (ABI mode)",
                 per_call_us(lambda: C.MF_OperationNumOutputs(x), 200000),
                 per_call_us(cffi_run, 20000)))

    # ctypes.
    L = ctypes.CDLL(LIB)

    class Out(ctypes.Structure):
        _fields_ = [("oper", ctypes.c_void_p), ("index", ctypes.c_int)]

    L.MF_OperationNumOutputs.argtypes = [ctypes.c_void_p]
    L.MF_OperationNumOutputs.restype = ctypes.c_int
    vp = ctypes.c_void_p
    L.MF_SessionRun.argtypes = [vp, vp, ctypes.POINTER(Out), ctypes.POINTER(vp),
                                ctypes.c_int, ctypes.POINTER(Out),
                                ctypes.POINTER(vp), ctypes.c_int, vp,
                                ctypes.c_int, vp, vp]
    L.MF_SessionRun.restype = None
    L.MF_DeleteTensor.argtypes = [vp]
    L.MF_DeleteTensor.restype = None
    cx = int(ffi.cast("uintptr_t", x))
    cy = int(ffi.cast("uintptr_t", y))
    c_in = (Out * 1)(Out(cx, 0))
    c_out = (Out * 1)(Out(cy, 0))
    c_vals = (vp * 1)(int(ffi.cast("uintptr_t", feed)))
    c_res = (vp * 1)()
    c_session = vp(int(ffi.cast("uintptr_t", session)))
    c_status = vp(int(ffi.cast("uintptr_t", status)))
    c_x = vp(cx)

    def ctypes_run():
        L.MF_SessionRun(c_session, None, c_in, c_vals, 1, c_out, c_res, 1,
                        None, 0, None, c_status)
        L.MF_DeleteTensor(c_res[0])

    rows.append(("ctypes",
                 per_call_us(lambda: L.MF_OperationNumOutputs(c_x), 200000),
                 per_call_us(ctypes_run, 20000)))

    # pybind11, when it can be built.
    pyb_inc = "/usr/include/pybind11"
    py_inc = sysconfig.get_paths()["include"]
    if os.path.isdir(pyb_inc) and os.path.exists(
            os.path.join(py_inc, "Python.h")):
        tmp = tempfile.mkdtemp()
        src = os.path.join(tmp, "mf_pyb.cc")
        with open(src, "w") as f:
            f.write(PYBIND_SRC)
        ext = sysconfig.get_config_var("EXT_SUFFIX")
        out = os.path.join(tmp, "mf_pyb" + ext)
        subprocess.check_call([
            "c++", "-O2", "-shared", "-fPIC", "-std=c++17", "-I" + py_inc,
            "-I" + INCLUDE, src, "-o", out, LIB
        ])
        sys.path.insert(0, tmp)
        import mf_pyb
        ux = int(ffi.cast("uintptr_t", x))
        args = (int(ffi.cast("uintptr_t", session)), ux,
                int(ffi.cast("uintptr_t", y)), int(ffi.cast("uintptr_t", feed)),
                int(ffi.cast("uintptr_t", status)))
        rows.append(("pybind11 module",
                     per_call_us(lambda: mf_pyb.num_outputs(ux), 200000),
                     per_call_us(lambda: mf_pyb.run(*args), 20000)))
    else:
        print("pybind11 or Python.h not found: pybind11 left out")

    print("%-18s %22s %22s" % ("binding", "MF_OperationNumOutputs",
                               "one-node MF_SessionRun"))
    for name, trivial, run in rows:
        print("%-18s %19.3f us %19.3f us" % (name, trivial, run))


if __name__ == "__main__":
    main()
