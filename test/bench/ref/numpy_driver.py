"""Times one function of ml.py the way the C driver of cdriver.go times
compiled code, and speaks its protocol: the sizes and extents from
$BENCH_DIR/config, the inputs from in<i>.bin, one untimed warm-up call,
then timed calls until they last $BENCH_MIN_NS (at least $BENCH_MIN_REPS,
at most $BENCH_MAX_REPS, one when a call exceeds $BENCH_MAX_NS); prints
"core NAME" (the OpenBLAS kernel NumPy's BLAS dispatched to) and
"median_ns reps min_ns", and writes the last results to out<variant>_<k>.bin.

usage: python3 numpy_driver.py SPEC.json VARIANT"""
import ctypes
import json
import os
import sys
import time

import numpy as np

import ml

DTYPES = {"float": np.float32, "double": np.float64, "int32_t": np.int32, "int64_t": np.int64}


def blas_core():
    """The kernel of the OpenBLAS mapped into this process (NumPy's BLAS),
    or "not OpenBLAS"."""
    with open("/proc/self/maps") as f:
        libs = sorted({line.split()[-1] for line in f if "blas" in line.rsplit("/", 1)[-1]})
    for path in libs:
        try:
            get = ctypes.CDLL(path).openblas_get_corename
        except (OSError, AttributeError):
            continue
        get.restype = ctypes.c_char_p
        return get().decode()
    return "not OpenBLAS"


def main():
    spec = json.load(open(sys.argv[1]))
    variant = int(sys.argv[2])
    d = os.environ["BENCH_DIR"]
    min_ns = int(os.environ["BENCH_MIN_NS"])
    min_reps, max_reps = int(os.environ["BENCH_MIN_REPS"]), int(os.environ["BENCH_MAX_REPS"])
    max_ns = int(os.environ.get("BENCH_MAX_NS", "0"))
    words = open(os.path.join(d, "config")).read().split()
    pos = spec["nsyms"]
    inputs, shapes = [], []
    for i, p in enumerate(spec["params"]):
        shape = tuple(int(w) for w in words[pos:pos + p["rank"]])
        pos += p["rank"]
        if p["out"]:
            shapes.append((shape, DTYPES[p["ctype"]]))
            continue
        a = np.fromfile(os.path.join(d, "in%d.bin" % i), dtype=DTYPES[p["ctype"]])
        inputs.append(a.reshape(shape))
    fn = getattr(ml, spec["fn"])

    t0 = time.perf_counter_ns()
    outs = fn(*inputs)  # warm-up
    warm = time.perf_counter_ns() - t0
    times = [warm] if max_ns > 0 and warm > max_ns else []
    total = sum(times)
    while len(times) < max_reps and (len(times) < min_reps or total < min_ns) and not (max_ns > 0 and times and total > max_ns):
        t0 = time.perf_counter_ns()
        outs = fn(*inputs)
        t = time.perf_counter_ns() - t0
        times.append(t)
        total += t
    if not times:
        sys.exit("no timed call (BENCH_MAX_REPS < 1)")
    times.sort()
    print("core", blas_core())
    print(times[len(times) // 2], len(times), times[0], flush=True)

    if not isinstance(outs, tuple):
        outs = (outs,)
    if len(outs) != len(shapes):
        sys.exit("%s returned %d results, expected %d" % (spec["fn"], len(outs), len(shapes)))
    for k, (out, (shape, dtype)) in enumerate(zip(outs, shapes)):
        if out.shape != shape:
            sys.exit("%s: result %d has shape %s, expected %s" % (spec["fn"], k, out.shape, shape))
        np.ascontiguousarray(out, dtype=dtype).tofile(os.path.join(d, "out%d_%d.bin" % (variant, k)))


if __name__ == "__main__":
    main()
