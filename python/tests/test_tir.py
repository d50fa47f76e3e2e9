"""Tests of the tir Python package: python3 -m unittest discover -s python/tests

Every compiled result is compared with the reference interpreter (tc-run)
and with the same computation written independently in NumPy. The tools
come from $TIR_TC_OPT / $TIR_TC_RUN (test/python_test.go sets them to fresh
builds) or the repository's bin/; the cache is a fresh temporary directory.
"""

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
# $TIR_TEST_INSTALLED: test the copy `pip install ./python` put on the
# path (test/pip_test.sh), not the tree's.
if not os.environ.get("TIR_TEST_INSTALLED"):
    sys.path.insert(0, os.path.join(REPO, "python"))

import tir  # noqa: E402

# Where the package under test is imported from, for child processes.
PKG_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(tir.__file__)))
from tir import _sizeexpr  # noqa: E402

EXAMPLES = os.environ.get("TIR_EXAMPLES") or os.path.normpath(os.path.join(REPO, "..", "shared", "examples"))
KERNELS = os.path.join(HERE, "data", "kernels.tir")

_saved_env = {}


def setUpModule():
    for t in ("tc-opt", "tc-run", "llc", "cc"):
        try:
            tir.find_tool(t)
        except tir.CompileError as e:
            raise unittest.SkipTest("the tir package needs %s: %s" % (t, e))
    cache = tempfile.mkdtemp(prefix="tir-test-cache-")
    _saved_env["TIR_CACHE_DIR"] = os.environ.get("TIR_CACHE_DIR")
    os.environ["TIR_CACHE_DIR"] = cache


def tearDownModule():
    cache = os.environ.get("TIR_CACHE_DIR")
    old = _saved_env.get("TIR_CACHE_DIR")
    if old is None:
        os.environ.pop("TIR_CACHE_DIR", None)
    else:
        os.environ["TIR_CACHE_DIR"] = old
    if cache and os.path.basename(cache).startswith("tir-test-cache-"):
        shutil.rmtree(cache, ignore_errors=True)


def example(name):
    p = os.path.join(EXAMPLES, name)
    if not os.path.exists(p):
        raise unittest.SkipTest("shared example %s not found (set $TIR_EXAMPLES)" % p)
    return p


def lap5(u):
    """The 5-point Laplacian of u's interior (one point less on each side
    of the first two axes), written with NumPy slicing."""
    return (4 * u[1:-1, 1:-1] - u[2:, 1:-1] - u[:-2, 1:-1] - u[1:-1, 2:] - u[1:-1, :-2])


def rng(seed=0):
    return np.random.default_rng(seed)


class SizeExprTest(unittest.TestCase):
    """The size expressions of --emit=abi-json (no tools needed)."""

    def test_parse_and_eval(self):
        env = {"N": 10, "M": 7, "?_x_I": 12}
        for text, want in [("N", 10), ("N + 2", 12), ("N - W + 1", 4), ("-2*M + N", -4),
                           ("max(N - 2, 0)", 8), ("min(N, ?_x_I - 1)", 10), ("N floordiv 3", 3),
                           ("-(N floordiv 3)", -3), ("(N + 1) ceildiv 2", 6), ("N mod 4", 2),
                           ("3*(M floordiv 2) - 1", 8), ("?_x_I - N floordiv 4", 10)]:
            e = _sizeexpr.parse(text)
            self.assertEqual(e.eval(dict(env, W=7)), want, text)

    def test_solve(self):
        self.assertEqual(_sizeexpr.parse("N + 2").solve("N", 66, {}), 64)
        self.assertEqual(_sizeexpr.parse("max(N - 2, 0)").solve("N", 8, {}), 10)
        self.assertEqual(_sizeexpr.parse("2*M").solve("M", 10, {}), 5)
        self.assertIsNone(_sizeexpr.parse("2*M").solve("M", 9, {}))
        self.assertIsNone(_sizeexpr.parse("N floordiv 2").solve("N", 9, {}))
        self.assertEqual(_sizeexpr.parse("N - W + 1").solve("W", 3, {"N": 10}), 8)

    def test_errors(self):
        for bad in ("N +", "max(N", "N ? 2", ""):
            with self.assertRaises(ValueError, msg=bad):
                _sizeexpr.parse(bad)


ABI = {
    "abi_version": 1,
    "functions": [{
        "name": "names", "symbol": "names",
        "args": [
            {"name": "int", "c_name": "int_", "role": "input", "elem": "f32", "c_type": "float",
             "dims": [{"name": "I", "lo": "0", "hi": "?_int_I", "size": "?_int_I"}]},
            {"name": "result", "c_name": "result", "role": "input", "elem": "f16", "c_type": "uint16_t",
             "dims": [{"name": "I", "lo": "-1", "hi": "N + 1", "size": "N + 2"}]},
            {"name": "class", "c_name": "class_", "role": "input", "elem": "f32", "c_type": "float", "dims": []}],
        "results": [
            {"name": "result0", "c_name": "result0", "role": "result", "elem": "f32", "c_type": "float",
             "dims": [{"name": "I", "lo": "1", "hi": "?_int_I - 1", "size": "max(?_int_I - 2, 0)"}]},
            {"name": "result1", "c_name": "result1", "role": "result", "elem": "f32", "c_type": "float", "dims": []}],
        "size_symbols": [{"name": "N", "c_name": "N"}],
        "error_function": "names_error",
        "result_shape_function": "names_result_shape",
        "result_shape_data_function": None,
        "unknown_extents": [{"name": "?_int_I", "arg": "int", "dim": "I", "index": 0}]}]}


class SignatureTest(unittest.TestCase):
    """Reading tc-opt --emit=abi-json (no tools needed)."""

    def test_parse_abi_json(self):
        from tir import _signature
        (sig,) = _signature.parse_abi_json(json.dumps(ABI))
        self.assertEqual((sig.name, sig.symbol, sig.error_function, sig.result_shape_function,
                          sig.result_shape_data_function),
                         ("names", "names", "names_error", "names_result_shape", None))
        self.assertEqual([(p.name, p.cname, p.elem, p.rank) for p in sig.inputs],
                         [("int", "int_", "f32", 1), ("result", "result", "f16", 1), ("class", "class_", "f32", 0)])
        self.assertEqual([(p.name, p.elem, p.rank) for p in sig.results], [("result0", "f32", 1), ("result1", "f32", 0)])
        self.assertEqual(sig.symbols, ["N"])
        self.assertEqual(list(sig.unknown), ["?_int_I"])
        self.assertIs(sig.unknown["?_int_I"][0], sig.inputs[0])
        d = sig.inputs[1].dims[0]
        self.assertEqual((d.name, d.lo.eval({}), d.hi.eval({"N": 5}), d.size.eval({"N": 5})), ("I", -1, 6, 7))

    def test_other_version_or_malformed(self):
        from tir import _signature
        with self.assertRaisesRegex(ValueError, "abi_version 2; this package reads version 1"):
            _signature.parse_abi_json(json.dumps(dict(ABI, abi_version=2)))
        broken = json.loads(json.dumps(ABI))
        del broken["functions"][0]["size_symbols"]
        with self.assertRaisesRegex(ValueError, "malformed"):
            _signature.parse_abi_json(json.dumps(broken))
        broken = json.loads(json.dumps(ABI))
        broken["functions"][0]["unknown_extents"][0]["index"] = 3
        with self.assertRaisesRegex(ValueError, "unknown extent"):
            _signature.parse_abi_json(json.dumps(broken))


class LaplacianTest(unittest.TestCase):
    """The shared laplacian examples: compiled = interpreter = NumPy."""

    @classmethod
    def setUpClass(cls):
        cls.mod = tir.compile(example("laplacian.tir"))
        cls.sym = tir.compile(example("laplacian_symbolic.tir"))

    def test_static_matches_interp_and_numpy(self):
        u = rng(1).standard_normal((7, 9, 9)).astype(np.float32)   # I[-1:6] x J[-1:8] x K[0:9]
        out = self.mod.laplacian(u)
        self.assertEqual(out.shape, (5, 7, 9))
        self.assertEqual(out.dtype, np.float32)
        np.testing.assert_array_equal(out, self.mod.laplacian(u, backend="interp"))
        np.testing.assert_allclose(out, lap5(u), rtol=1e-6, atol=1e-6)

    def test_positional_and_named(self):
        u = rng(2).standard_normal((7, 9, 9)).astype(np.float32)
        a = self.mod.laplacian(u)
        np.testing.assert_array_equal(a, self.mod.laplacian(inp=u))
        np.testing.assert_array_equal(a, self.mod["laplacian"](inp=u, backend="interp"))
        with self.assertRaisesRegex(tir.ArgumentError, "argument 'inp' is given twice"):
            self.mod.laplacian(u, inp=u)
        with self.assertRaisesRegex(tir.ArgumentError, "missing argument 'inp'"):
            self.mod.laplacian()
        with self.assertRaisesRegex(tir.ArgumentError, "no argument or size symbol 'grid'.*arguments: inp"):
            self.mod.laplacian(grid=u)

    def test_symbol_inference(self):
        g = rng(3).standard_normal((23, 17))                         # N = 23, M = 17
        out = self.sym.laplacian(g)
        self.assertEqual(out.shape, (21, 15))
        np.testing.assert_array_equal(out, self.sym.laplacian(g, backend="interp"))
        np.testing.assert_allclose(out, lap5(g), rtol=1e-12, atol=1e-12)
        self.assertEqual(self.sym.laplacian.result_shapes(N=23, M=17), [(21, 15)])

    def test_explicit_symbol(self):
        g = rng(4).standard_normal((23, 17))
        np.testing.assert_array_equal(self.sym.laplacian(g, N=23, M=17), self.sym.laplacian(g))
        # A symbol that contradicts the array: the compiled code's own check.
        for backend in ("compiled", "interp"):
            with self.assertRaises(tir.ArgumentError) as cm:
                self.sym.laplacian(g, N=24, backend=backend)
            self.assertEqual((cm.exception.argument, cm.exception.dimension), ("inp", "I"))
            self.assertIn("expected extent N = 24 (given as N=24), got 23", str(cm.exception))

    def test_wrong_shape_names_argument_and_dimension(self):
        u = np.zeros((7, 9, 8), np.float32)
        for backend in ("compiled", "interp"):
            with self.assertRaises(tir.ArgumentError) as cm:
                self.mod.laplacian(u, backend=backend)
            e = cm.exception
            self.assertEqual((e.argument, e.dimension), ("inp", "K"), str(e))
            self.assertIn("argument 'inp' dimension K: expected extent 9, got 8", str(e))

    def test_dtype_and_rank_refused(self):
        with self.assertRaisesRegex(tir.ArgumentError, "argument 'inp' has dtype float64, @laplacian wants float32"):
            self.mod.laplacian(np.zeros((7, 9, 9)))
        with self.assertRaisesRegex(tir.ArgumentError, "argument 'inp' has 2 dimensions .* wants 3"):
            self.mod.laplacian(np.zeros((7, 9), np.float32))
        with self.assertRaisesRegex(tir.ArgumentError, "expected a NumPy array"):
            self.mod.laplacian([[0.0]])

    def test_field_on_a_larger_padded_grid(self):
        # A 5 x 7 interior with a halo of 2 in I and J: the function reads
        # a halo of 1, the part [1:8, 1:10] of the grid, without a copy.
        grid = rng(5).standard_normal((9, 11, 9)).astype(np.float32)
        f = tir.Field(grid, origin=(2, 2, 0))
        out = self.mod.laplacian(f)
        np.testing.assert_array_equal(out, self.mod.laplacian(f, backend="interp"))
        np.testing.assert_allclose(out, lap5(grid[1:-1, 1:-1]), rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(out, self.mod.laplacian(tir.Field(grid, origin={"I": 2, "J": 2})))
        np.testing.assert_array_equal(out, self.mod.laplacian(tir.Field(grid, start=(-2, -2, 0))))
        # Too small a halo: the message gives the points needed and held.
        with self.assertRaises(tir.ArgumentError) as cm:
            self.mod.laplacian(tir.Field(grid[2:, 2:], origin=(0, 0, 0)))
        self.assertIn("argument 'inp' dimension I: needs the points [-1:6] (I[-1:6]), the Field covers [0:7]",
                      str(cm.exception))
        self.assertEqual(cm.exception.dimension, "I")

    def test_out(self):
        u = rng(6).standard_normal((7, 9, 9)).astype(np.float32)
        ref = self.mod.laplacian(u)
        for backend in ("compiled", "interp"):
            buf = np.full((5, 7, 9), np.nan, np.float32)
            self.assertIs(self.mod.laplacian(u, out=buf, backend=backend), buf)
            np.testing.assert_array_equal(buf, ref)
            # Into the interior of a padded array (origin 1: I[0:5] is 1:6).
            padded = np.zeros((7, 9, 9), np.float32)
            self.mod.laplacian(u, out=tir.Field(padded, origin=(1, 1, 0)), backend=backend)
            np.testing.assert_array_equal(padded[1:-1, 1:-1], ref)
            self.assertEqual(np.count_nonzero(padded[0]), 0)
        with self.assertRaises(tir.ArgumentError) as cm:
            self.mod.laplacian(u, out=np.empty((5, 6, 9), np.float32))
        self.assertIn("dimension J: expected extent 7, got 6", str(cm.exception))
        with self.assertRaisesRegex(tir.ArgumentError, r"result #0 \(out=\) has dtype float64"):
            self.mod.laplacian(u, out=np.empty((5, 7, 9)))
        with self.assertRaisesRegex(tir.ArgumentError, "overlaps argument 'inp'"):
            self.mod.laplacian(u, out=u[1:6, 1:8])
        ro = np.empty((5, 7, 9), np.float32)
        ro.flags.writeable = False
        with self.assertRaisesRegex(tir.ArgumentError, "read-only"):
            self.mod.laplacian(u, out=ro)

    def test_non_contiguous(self):
        big = rng(7).standard_normal((7, 9, 18)).astype(np.float32)
        u = big[:, :, ::2]                                           # last stride 2 elements
        want = self.mod.laplacian(np.ascontiguousarray(u))
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            out = self.mod.laplacian(u)
        np.testing.assert_array_equal(out, want)
        msgs = [str(w.message) for w in ws if issubclass(w.category, tir.CopyWarning)]
        self.assertEqual(len(msgs), 1, msgs)
        self.assertIn("argument 'inp' (7, 9, 9): its last dimension is not contiguous", msgs[0])
        strict = tir.compile(example("laplacian.tir"), copy="never")
        with self.assertRaisesRegex(tir.ArgumentError, "last dimension is not contiguous"):
            strict.laplacian(u)
        # A view with outer strides (the interior of a padded grid) needs no copy.
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            strict.laplacian(tir.Field(np.zeros((9, 11, 9), np.float32), origin=(2, 2, 0)))
        # A result is written in place: a non-contiguous out= is refused.
        with self.assertRaisesRegex(tir.ArgumentError, r"result #0 \(out=\).*not contiguous"):
            self.mod.laplacian(np.ascontiguousarray(u), out=np.empty((5, 7, 18), np.float32)[:, :, ::2])


class KernelsTest(unittest.TestCase):
    """python/tests/data/kernels.tir: halos, several results, 0-d tensors,
    integers, result-only symbols, unknown extents."""

    @classmethod
    def setUpClass(cls):
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            cls.mod = tir.compile(KERNELS)
        cls.warnings = [w for w in ws if issubclass(w.category, tir.CompileWarning)]

    def test_view_precondition_warning(self):
        """@pick's view precondition, which tc-opt checks at run time, is a
        CompileWarning located in kernels.tir, with tc-opt's note."""
        with open(KERNELS) as f:
            lines = f.read().splitlines()
        line = next(i for i, l in enumerate(lines) if "tir.view %a [X = 2*i + 1]" in l)
        head = next(i for i, l in enumerate(lines) if l.startswith("tir.func @pick("))
        self.assertEqual(len(self.warnings), 1, [str(w.message) for w in self.warnings])
        w = self.warnings[0].message
        self.assertEqual((w.file, w.line, w.col), (KERNELS, line + 1, lines[line].index("%v") + 1))
        self.assertTrue(str(w).startswith("%s:%d:%d: warning: view precondition not provable: X = 2*i + 1"
                                          % (KERNELS, line + 1, lines[line].index("%v") + 1)), str(w))
        self.assertEqual(len(w.notes), 1, w.notes)
        self.assertTrue(w.notes[0].startswith("%s:%d:%d: note: the operand has X[0:N]"
                                              % (KERNELS, head + 1, lines[head].index("%a") + 1)), w.notes)
        self.assertEqual(os.path.abspath(self.warnings[0].filename), os.path.abspath(__file__),
                         "the warning should point at the line that called tir.compile")

    def test_field_interior_maps_to_output_domain(self):
        # lap2d(u: I[-1:N+1] x J[-1:M+1]) -> I[0:N] x J[0:M]: the padded
        # array's interior is the output domain; N, M come from the Field.
        N, M = 12, 10
        u = rng(8).standard_normal((N + 2, M + 2))
        out = self.mod.lap2d(tir.Field(u, origin=1))
        self.assertEqual(out.shape, (N, M))
        np.testing.assert_array_equal(out, self.mod.lap2d(tir.Field(u, origin=1), backend="interp"))
        np.testing.assert_allclose(out, lap5(u), rtol=1e-12, atol=1e-12)
        # A plain array is the argument's whole interval: the same here.
        np.testing.assert_array_equal(out, self.mod.lap2d(u))
        # A halo of 2 holds more than the argument reads below: the sizes
        # are not inferred from it, but given they select the right part.
        g = np.zeros((N + 4, M + 4))
        g[1:-1, 1:-1] = u
        with self.assertRaisesRegex(tir.ArgumentError, r"(?s)size symbols N, M cannot be inferred.*Field covering I\[-2:14\]"):
            self.mod.lap2d(tir.Field(g, origin=2))
        np.testing.assert_array_equal(out, self.mod.lap2d(tir.Field(g, origin=2), N=N, M=M))

    def test_two_results_and_scalars(self):
        x, y = rng(9).standard_normal(11), rng(10).standard_normal(11)
        q, s = self.mod.stats(x, y, 2.5)
        self.assertEqual((q.shape, s.shape), ((11,), ()))
        np.testing.assert_allclose(q, x * y * 2.5, rtol=1e-12)
        np.testing.assert_allclose(s, np.sum(x * y), rtol=1e-12)
        qi, si = self.mod.stats(x, y, np.float64(2.5), backend="interp")
        np.testing.assert_array_equal(q, qi)
        np.testing.assert_allclose(s, si, rtol=1e-12)
        keep = np.empty(11)
        r = self.mod.stats(x=x, y=y, k=np.array(2.5), out=(keep, None))
        self.assertIs(r[0], keep)
        np.testing.assert_array_equal(keep, q)
        with self.assertRaisesRegex(tir.ArgumentError, "has 2 results: out= must be a tuple"):
            self.mod.stats(x, y, 2.5, out=keep)

    def test_size_mismatch_names_the_source(self):
        """A size mismatch says where the expected extent came from: the
        argument and dimension a size symbol was inferred from, a Field,
        an out= array, or the value given by name (issue 24, item 6)."""
        x, y = rng(9).standard_normal(9), rng(10).standard_normal(8)
        cases = [
            (lambda b: self.mod.stats(x, y, 2.5, backend=b),
             "argument 'y' dimension I: expected extent N = 9 (from 'x' dimension I), got 8", ("y", "I")),
            (lambda b: self.mod.stats(y=y, x=x, k=2.5, backend=b),
             "argument 'y' dimension I: expected extent N = 9 (from 'x' dimension I), got 8", ("y", "I")),
            (lambda b: self.mod.stats(x, x, 2.5, N=8, backend=b),
             "argument 'x' dimension I: expected extent N = 8 (given as N=8), got 9", ("x", "I")),
            (lambda b: self.mod.stats(tir.Field(x), tir.Field(x.copy()), 2.5, out=(np.empty(8), None)),
             "argument 'result0' dimension I: expected extent N = 9 (from the Field of 'x' dimension I), got 8",
             ("result0", "I")),
        ]
        for backend in ("compiled", "interp"):
            for call, want, where in cases:
                with self.assertRaises(tir.ArgumentError) as cm:
                    call(backend)
                self.assertIn(want, str(cm.exception))
                self.assertEqual((cm.exception.argument, cm.exception.dimension), where)
        with self.assertRaises(tir.ArgumentError) as cm:
            self.mod.lap2d(np.zeros((9, 6)), out=np.zeros((7, 5)))
        self.assertIn("argument 'result' dimension J: expected extent M = 4 (from 'u' dimension J), got 5"
                      " (the out= array of result #0)", str(cm.exception))
        # In an expression of symbols, each symbol is named with its source.
        sym = tir.compile(example("laplacian_symbolic.tir"))
        with self.assertRaises(tir.ArgumentError) as cm:
            sym.laplacian(np.zeros((5, 6)), out=np.zeros((3, 3)))
        self.assertRegex(str(cm.exception), r"argument 'result' dimension J: expected extent \S.*M.* = 4 "
                                            r"\(M from 'inp' dimension J\), got 3")

    def test_integers_and_broadcast(self):
        a = rng(11).integers(-100, 100, (6, 4)).astype(np.int32)
        b = np.arange(4, dtype=np.int32)
        out = self.mod.iadd(a, b)
        self.assertEqual(out.dtype, np.int32)
        np.testing.assert_array_equal(out, a + b)
        np.testing.assert_array_equal(out, self.mod.iadd(a, b, backend="interp"))
        with self.assertRaisesRegex(tir.ArgumentError, "argument 'b' has dtype int64, @iadd wants int32"):
            self.mod.iadd(a, b.astype(np.int64))

    def test_result_only_symbol(self):
        a = np.arange(20.0)
        with self.assertRaisesRegex(tir.ArgumentError, "size symbol M cannot be inferred .*pass M=..."):
            self.mod.pick(a)
        out = self.mod.pick(a, M=9)
        np.testing.assert_array_equal(out, a[1::2][:9])
        np.testing.assert_array_equal(out, self.mod.pick(a, M=9, backend="interp"))
        # With out=, its shape gives M.
        buf = np.empty(5)
        self.mod.pick(a, out=buf)
        np.testing.assert_array_equal(buf, a[1:11:2])
        # A run-time check beyond the extents: ArgumentError when f_error's
        # message names an argument, else RunError.
        with self.assertRaisesRegex(tir.TirError, "view precondition"):
            self.mod.pick(a, M=11)
        with self.assertRaisesRegex(tir.ArgumentError, "size symbol M must be an integer"):
            self.mod.pick(a, M=2.0)

    def test_unknown_extent(self):
        x = rng(12).standard_normal(13).astype(np.float32)
        out = self.mod.tail(x)
        self.assertEqual(out.shape, (11,))
        np.testing.assert_array_equal(out, x[2:] + x[:-2])
        np.testing.assert_array_equal(out, self.mod.tail(x, backend="interp"))

    def test_signature(self):
        f = self.mod.lap2d
        self.assertEqual([p.name for p in f.inputs], ["u"])
        self.assertEqual(f.symbols, ["N", "M"])
        self.assertIn("I[-1:N + 1] x J[-1:M + 1]", f.__doc__)
        self.assertEqual(sorted(self.mod.functions), ["iadd", "lap2d", "pick", "stats", "tail"])
        with self.assertRaisesRegex(AttributeError, "defines no function 'lap3d'"):
            self.mod.lap3d


class DataExtentTest(unittest.TestCase):
    """Results sized from the data (tir.compress, tir.iota): allocated
    through f_result_shape_data."""

    @classmethod
    def setUpClass(cls):
        cls.mod = tir.compile(os.path.join(HERE, "data", "data_extents.tir"))

    def test_compress(self):
        x = rng(7).standard_normal(17)
        out = self.mod.positive(x)
        np.testing.assert_array_equal(out, x[x > 0])
        np.testing.assert_array_equal(out, self.mod.positive(x, backend="interp"))
        self.assertEqual(self.mod.positive(-np.ones(5)).shape, (0,))

    def test_iota(self):
        out = self.mod.arange(np.int64(3), np.int64(20), np.int64(4))
        np.testing.assert_array_equal(out, np.arange(3, 20, 4))
        np.testing.assert_array_equal(out, self.mod.arange(np.int64(3), np.int64(20), np.int64(4), backend="interp"))
        np.testing.assert_array_equal(self.mod.arange(np.int64(5), np.int64(-6), np.int64(-3)), np.arange(5, -6, -3))
        with self.assertRaisesRegex(tir.RunError, "step is 0"):
            self.mod.arange(np.int64(0), np.int64(4), np.int64(0))

    def test_out_of_the_wrong_size(self):
        x = np.array([1.0, -2.0, 3.0])
        with self.assertRaisesRegex(tir.ArgumentError, "dimension I"):
            self.mod.positive(x, out=np.empty(3))
        buf = np.empty(2)
        self.assertIs(self.mod.positive(x, out=buf), buf)
        np.testing.assert_array_equal(buf, [1.0, 3.0])


class ElementsTest(unittest.TestCase):
    """f16, i8, i1 (and bf16) elements; a function named like a C library function."""

    def test_f16_i8_i1(self):
        mod = tir.compile(os.path.join(HERE, "data", "elements.tir"))
        h = np.array([1.0, 0.1, -2.0, 1000.0, 3e-5], np.float16)
        b = np.array([1, -2, 100, -100, 127], np.int8)
        m = np.array([True, False, True, False, False])
        g, c, q = mod.abs(h, b, m)
        self.assertEqual((g.dtype, c.dtype, q.dtype), (np.float16, np.int8, np.bool_))
        np.testing.assert_array_equal(g, h + h)
        want_c = np.where(m, b, -b).astype(np.int8)
        np.testing.assert_array_equal(c, want_c)
        np.testing.assert_array_equal(q, (want_c > 0) ^ m)
        with self.assertRaisesRegex(tir.ArgumentError, "argument 'm' has dtype uint8, @abs wants bool"):
            mod.abs(h, b, m.astype(np.uint8))

    def test_bf16_bits(self):
        try:
            mod = tir.compile(os.path.join(HERE, "data", "bf16.tir"))
        except tir.CompileError as e:
            if "bf16" in str(e):
                self.skipTest("this tc-opt gives bf16 no C interface: %s" % str(e).splitlines()[-1])
            raise
        x = np.array([1.0, 2.5, -3.0, 0.375], np.float32)
        bits = (x.view(np.uint32) >> 16).astype(np.uint16)
        y = mod.twice(bits)
        self.assertEqual(y.dtype, np.uint16)
        np.testing.assert_array_equal((y.astype(np.uint32) << 16).view(np.float32), 2 * x)


class TCTest(unittest.TestCase):
    def test_matmul_tc(self):
        mod = tir.compile(example("matmul.tc"))
        A = rng(13).standard_normal((5, 7)).astype(np.float32)
        B = rng(14).standard_normal((7, 3)).astype(np.float32)
        C = mod.matmul(A, B)
        np.testing.assert_allclose(C, A @ B, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(C, mod.matmul(A=A, B=B, backend="interp"), rtol=1e-6, atol=1e-6)
        with self.assertRaises(tir.ArgumentError) as cm:
            mod.matmul(A, B[:6])
        self.assertEqual((cm.exception.argument, cm.exception.dimension), ("B", "B_0"))


def correlate_same(x, w):
    """x correlated with w, zero-padded to x's length (NumPy's own)."""
    return np.correlate(x, w, mode="same")


class CompileWarningTest(unittest.TestCase):
    """tc-opt's warnings are CompileWarnings, from the cache too."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tir-warn-test-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.cache = os.path.join(self.tmp, "cache")

    def source(self, name, text):
        p = os.path.join(self.tmp, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    def compile_warnings(self, path):
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            mod = tir.compile(path, cache_dir=self.cache)
        return mod, [w for w in ws if issubclass(w.category, tir.CompileWarning)]

    def check_located(self, ws, path, line, col, text):
        """One warning, at path:line:col, saying text, raised at the test's line."""
        self.assertEqual(len(ws), 1, [str(w.message) for w in ws])
        w = ws[0].message
        self.assertEqual((w.file, w.line, w.col), (path, line, col))
        self.assertTrue(str(w).startswith("%s:%d:%d: warning: " % (path, line, col)), str(w))
        self.assertIn(text, w.message)
        self.assertNotIn(self.cache, str(w), "the warning names the cache's copy")
        self.assertEqual(os.path.abspath(ws[0].filename), os.path.abspath(__file__))

    def test_unchecked_precondition(self):
        text = "def lookup(float(J) B, int32(I) C) -> (A) {\n  A(i) = B(C(i))\n}\n"
        src = self.source("lookup.tc", text)
        col = text.splitlines()[1].index("C(i)") + 1
        B = rng(20).standard_normal(6).astype(np.float32)
        C = np.array([5, 0, 3, 3, 1], np.int32)
        for hit in (False, True):
            mod, ws = self.compile_warnings(src)
            self.assertEqual(mod.cache_hit, hit)
            self.check_located(ws, src, 2, col, "unchecked precondition: values of C must lie in [0, J)")
            np.testing.assert_array_equal(mod.lookup(B, C), B[C])

    def test_narrowed_padding(self):
        """Issue 20's guarded convolution warns at I(i + k - 1) and keeps
        the centre tap only; the clamped form of docs/tc.md, and the
        shared conv1d on a padded array, give NumPy's padded result."""
        guarded = ("def conv(float(N) I, float(3) Wt) -> (O) {\n"
                   "  O(i) +=! (i + k - 1 >= 0 && i + k - 1 < N) ? I(i + k - 1) * Wt(k) : 0 where i in 0:N\n}\n")
        x = rng(21).standard_normal(12).astype(np.float32)
        w = rng(22).standard_normal(3).astype(np.float32)
        src = self.source("conv.tc", guarded)
        col = guarded.splitlines()[1].index("I(i + k - 1)") + len("I(") + 1
        for hit in (False, True):
            mod, ws = self.compile_warnings(src)
            self.assertEqual(mod.cache_hit, hit)
            self.check_located(ws, src, 2, col, "reduction index k takes [1:2] after range inference, narrower than "
                               "dimension 0 of Wt ([0:3]) that Wt(k) indexes directly; narrowed by I(i + k - 1)")
            out = mod.conv(x, w)
            np.testing.assert_allclose(out, w[1] * x, rtol=1e-6)
            self.assertFalse(np.allclose(out, correlate_same(x, w), rtol=1e-3))
        clamped = guarded.replace("? I(i + k - 1)", "? I(max(min(i + k - 1, N - 1), 0))")
        with warnings.catch_warnings():
            warnings.simplefilter("error", tir.CompileWarning)
            mod = tir.compile(self.source("clamped.tc", clamped), cache_dir=self.cache)
            np.testing.assert_allclose(mod.conv(x, w), correlate_same(x, w), rtol=1e-5, atol=1e-6)
            conv1d = tir.compile(example("conv1d.tc"), cache_dir=self.cache).conv1d
            np.testing.assert_allclose(conv1d(np.pad(x, 1), w), correlate_same(x, w), rtol=1e-5, atol=1e-6)

    def test_truncated_reduction(self):
        """A reduction over K that drops a row of one operand warns, with
        tc-opt's notes on both operands, through compile_source too."""
        text = ("tir.func @f(%a: !tir.tensor<f32, I[0:4], K[0:8]>, %b: !tir.tensor<f32, K[0:7]>) -> !tir.tensor<f32, I[0:4]> {\n"
                "  %z = tir.constant 0.0 : f32\n"
                "  %r = tir.reduce over [K] init %z ins(%a, %b) {\n"
                "  ^bb0(%acc, %x, %y):\n"
                "    %p = tir.mul %x, %y\n"
                "    %q = tir.add %acc, %p\n"
                "    tir.yield %q\n"
                "  }\n"
                "  tir.return %r : !tir.tensor<f32, I[0:4]>\n}\n")
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            mod = tir.compile_source(text, name="trunc.tir", cache_dir=self.cache)
        ws = [w for w in ws if issubclass(w.category, tir.CompileWarning)]
        self.check_located(ws, "trunc.tir", 3, 3, "reduction over K truncates operand #0 from [0:8] to [0:7]")
        head = text.splitlines()[0]
        self.assertEqual(ws[0].message.notes, [
            "trunc.tir:1:%d: note: operand #0 has K[0:8], fixed by the type of argument 'a'" % (head.index("%a") + 1),
            "trunc.tir:1:%d: note: operand #1 has K[0:7], fixed by the type of argument 'b'" % (head.index("%b") + 1)])
        a = rng(23).standard_normal((4, 8)).astype(np.float32)
        b = rng(24).standard_normal(7).astype(np.float32)
        np.testing.assert_allclose(mod.f(a, b), a[:, :7] @ b, rtol=1e-5, atol=1e-6)

    def test_examples_do_not_warn(self):
        with warnings.catch_warnings():
            warnings.simplefilter("error", tir.CompileWarning)
            for name in ("matmul.tc", "conv1d.tc", "fcrelu.tc", "laplacian.tir", "laplacian_symbolic.tir"):
                tir.compile(example(name), cache_dir=self.cache)


CHILD = r"""
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import tir
m = tir.compile(sys.argv[2], cache_dir=sys.argv[3])
u = np.random.default_rng(17).standard_normal((9, 8))
ref = 4 * u[1:-1, 1:-1] - u[2:, 1:-1] - u[:-2, 1:-1] - u[1:-1, 2:] - u[1:-1, :-2]
close = bool(np.allclose(m.laplacian(u), ref, rtol=1e-12, atol=1e-12))  # loads the shared object
print(json.dumps({"hit": m.cache_hit, "so": m.so_path, "close": close}))
"""


class ToolLogTest(unittest.TestCase):
    """A base: the tools are wrappers that log each call (calls())."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tir-build-test-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.log = os.path.join(self.tmp, "tools.log")
        self.env = {}
        # Wrappers that log every invocation, then run the real tool.
        for tool, var in (("tc-opt", "TIR_TC_OPT"), ("llc", "TIR_LLC"), ("cc", "TIR_CC")):
            real = tir.find_tool(tool)
            w = os.path.join(self.tmp, tool)
            with open(w, "w") as f:
                f.write('#!/bin/sh\necho "%s $*" >> "%s"\nexec "%s" "$@"\n' % (tool, self.log, real))
            os.chmod(w, os.stat(w).st_mode | stat.S_IEXEC)
            self.env[var] = w
        for var, value in self.env.items():
            self.addCleanup(self._restore, var, os.environ.get(var))
            os.environ[var] = value

    @staticmethod
    def _restore(var, old):
        if old is None:
            os.environ.pop(var, None)
        else:
            os.environ[var] = old

    def calls(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [l.split()[0] for l in f if l.strip()]


class BuildTest(ToolLogTest):
    """The cache and the tools."""

    def test_cache_hit_runs_no_tool(self):
        cache = os.path.join(self.tmp, "cache")
        src = os.path.join(self.tmp, "lap.tir")
        shutil.copy(example("laplacian_symbolic.tir"), src)
        m1 = tir.compile(src, cache_dir=cache)
        self.assertFalse(m1.cache_hit)
        first = self.calls()
        self.assertEqual(sorted(set(first)), ["cc", "llc", "tc-opt"], first)
        m2 = tir.compile(src, cache_dir=cache)
        self.assertTrue(m2.cache_hit)
        self.assertEqual(self.calls(), first, "a cache hit ran tools")
        g = rng(15).standard_normal((9, 8))
        np.testing.assert_array_equal(m2.laplacian(g), m1.laplacian(g))
        self.assertEqual(m1.so_path, m2.so_path)
        # Another option: the front end is cached, the native code is not.
        m3 = tir.compile(src, cache_dir=cache, opt_level=1)
        self.assertEqual(self.calls()[len(first):], ["tc-opt", "llc", "cc"])
        self.assertNotEqual(m3.so_path, m1.so_path)
        np.testing.assert_allclose(m3.laplacian(g), lap5(g), rtol=1e-12, atol=1e-12)
        # Another source text: everything again.
        n = len(self.calls())
        with open(src, "a") as f:
            f.write("// changed\n")
        m4 = tir.compile(src, cache_dir=cache)
        self.assertFalse(m4.cache_hit)
        self.assertEqual(self.calls()[n:].count("tc-opt"), 2)
        # A changed tool (here its wrapper) is another key.
        n = len(self.calls())
        with open(self.env["TIR_LLC"], "a") as f:
            f.write("# another version\n")
        tir.compile(src, cache_dir=cache)
        self.assertEqual(self.calls()[n:], ["tc-opt", "llc", "cc"])

    def test_interp_backend_builds_nothing_native(self):
        cache = os.path.join(self.tmp, "cache")
        mod = tir.compile(example("laplacian.tir"), cache_dir=cache, backend="interp")
        self.assertEqual(self.calls(), ["tc-opt"])
        u = rng(16).standard_normal((7, 9, 9)).astype(np.float32)
        out = mod.laplacian(u)
        self.assertEqual(self.calls(), ["tc-opt"])
        np.testing.assert_allclose(out, lap5(u), rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(out, mod.laplacian(u, backend="compiled"))
        self.assertIn("llc", self.calls())

    def test_default_cache_dir(self):
        old = {k: os.environ.get(k) for k in ("TIR_CACHE_DIR", "XDG_CACHE_HOME")}
        try:
            os.environ.pop("TIR_CACHE_DIR", None)
            os.environ["XDG_CACHE_HOME"] = "/x/cache"
            self.assertEqual(tir.default_cache_dir(), "/x/cache/tir")
            os.environ.pop("XDG_CACHE_HOME")
            self.assertEqual(tir.default_cache_dir(), os.path.join(os.path.expanduser("~"), ".cache", "tir"))
        finally:
            for k, v in old.items():
                self._restore(k, v)

    def test_compile_error_names_the_file(self):
        src = os.path.join(self.tmp, "bad.tir")
        with open(src, "w") as f:
            f.write("tir.func @f(%a: !tir.tensor<f32, I[0:4]>) -> !tir.tensor<f32, I[0:4]> {\n"
                    "  %b = tir.add %a, %c\n  tir.return %b : !tir.tensor<f32, I[0:4]>\n}\n")
        with self.assertRaises(tir.CompileError) as cm:
            tir.compile(src, cache_dir=os.path.join(self.tmp, "cache"))
        self.assertIn(src + ":2:", str(cm.exception))
        self.assertIn("undefined value '%c'", str(cm.exception))

    def test_missing_tool(self):
        os.environ["TIR_LLC"] = os.path.join(self.tmp, "no-such-llc")
        with self.assertRaisesRegex(tir.CompileError, "TIR_LLC="):
            tir.compile(example("laplacian.tir"), cache_dir=os.path.join(self.tmp, "cache2"))


THREADS_CHILD = r"""
import json, os, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import tir
m = tir.compile(sys.argv[2], cache_dir=sys.argv[3], threads=True)
u = np.random.default_rng(18).standard_normal((700, 700))
out = m.laplacian(u)  # loads the shared object, and libgomp with it
with open("/proc/self/maps") as f:
    gomp = "libgomp" in f.read()
same = bool(np.array_equal(out, m.laplacian(u, backend="interp")))
print(json.dumps({"policy": m.wait_policy, "env": os.environ.get("OMP_WAIT_POLICY"), "gomp": gomp, "same": same}))
"""


class BuildOptionsTest(ToolLogTest):
    """mcpu, fp_contract, fp_reassociate and threads reach tc-opt, give
    other cache entries, and the code computes what the interpreter does."""

    def opt_call(self, mod):
        """The tc-opt -O command of a module's build."""
        cmds = [c for c in mod.tools_run if os.path.basename(c[0]) == "tc-opt" and c[1].startswith("-O")]
        self.assertEqual(len(cmds), 1, mod.tools_run)
        return cmds[0]

    def test_native_by_default(self):
        cache = os.path.join(self.tmp, "cache")
        mod = tir.compile(example("laplacian_symbolic.tir"), cache_dir=cache)
        self.assertEqual(mod.mcpu, "native")
        self.assertIn("--mcpu=native", self.opt_call(mod))
        self.assertTrue(mod.cpu, "native code names its CPU")
        generic = tir.compile(example("laplacian_symbolic.tir"), cache_dir=cache, mcpu="generic")
        self.assertIn("--mcpu=generic", self.opt_call(generic))
        self.assertEqual(generic.cpu, "generic")
        self.assertNotEqual(generic.so_path, mod.so_path)
        u = rng(19).standard_normal((40, 33))
        ref = mod.laplacian(u, backend="interp")
        np.testing.assert_array_equal(mod.laplacian(u), ref)
        np.testing.assert_array_equal(generic.laplacian(u), ref)

    def test_options_change_the_build(self):
        cache = os.path.join(self.tmp, "cache")
        path = example("matmul.tc")
        A = rng(20).standard_normal((37, 300)).astype(np.float32)
        B = rng(21).standard_normal((300, 45)).astype(np.float32)
        ref = tir.compile(path, cache_dir=cache, backend="interp").matmul(A, B)
        seen = {}
        # A named CPU that any machine of the target runs.
        named = {"x86_64": "x86-64", "aarch64": "cortex-a53"}[tir._build.host_target()]
        for opts, flag, exact in [({}, "--mcpu=native", True), ({"mcpu": named}, "--mcpu=" + named, True),
                                  ({"opt_level": 3}, "-O3", True), ({"fp_contract": "fast"}, "--fp-contract=fast", False),
                                  ({"fp_reassociate": True}, "--fp-reassociate", False),
                                  ({"threads": True}, "--threads", True)]:
            mod = tir.compile(path, cache_dir=cache, **opts)
            self.assertIn(flag, self.opt_call(mod), opts)
            self.assertNotIn(mod.so_path, seen, "%s shares the entry of %s" % (opts, seen.get(mod.so_path)))
            seen[mod.so_path] = opts
            C = mod.matmul(A, B)
            if exact:
                np.testing.assert_array_equal(C, ref, str(opts))
            else:
                # A fused or reordered sum rounds differently: compare
                # against the size of the products summed.
                self.assertLess(np.max(np.abs(C - ref)), 1e-5 * np.max(np.abs(A) @ np.abs(B)), opts)
            again = tir.compile(path, cache_dir=cache, **opts)
            self.assertTrue(again.cache_hit, opts)
            self.assertEqual(again.so_path, mod.so_path, opts)
        self.assertEqual(tir.compile(path, cache_dir=cache, mcpu=named).cpu, named)

    def test_native_entries_follow_the_host_cpu(self):
        """A cache shared by machines with other CPUs: native code is built
        again, generic code is shared."""
        from tir import _build
        cache = os.path.join(self.tmp, "cache")
        path = example("laplacian_symbolic.tir")
        native = tir.compile(path, cache_dir=cache)
        generic = tir.compile(path, cache_dir=cache, mcpu="generic")
        real = _build.host_cpu_key
        self.assertIsNotNone(real(), "/proc/cpuinfo has no flags")
        _build.host_cpu_key = lambda: "another machine"
        try:
            other = tir.compile(path, cache_dir=cache)
            self.assertFalse(other.cache_hit)
            self.assertNotEqual(other.so_path, native.so_path)
            self.assertTrue(tir.compile(path, cache_dir=cache, mcpu="generic").cache_hit)
        finally:
            _build.host_cpu_key = real
        self.assertEqual(tir.compile(path, cache_dir=cache).so_path, native.so_path)
        self.assertNotEqual(generic.so_path, native.so_path)

    def test_invalid_options(self):
        cache = os.path.join(self.tmp, "cache")
        path = example("laplacian_symbolic.tir")
        for opts, msg in [({"fp_contract": "fastest"}, "fp_contract must be 'off' or 'fast'"),
                          ({"fp_reassociate": 1}, "fp_reassociate must be True or False"),
                          ({"threads": "yes"}, "threads must be True or False"),
                          ({"mcpu": ""}, "mcpu must be"), ({"mcpu": "--threads"}, "mcpu must be"),
                          ({"mcpu": "znver9"}, "unknown .*CPU 'znver9'")]:
            with self.assertRaisesRegex(ValueError, msg, msg=str(opts)):
                tir.compile(path, cache_dir=cache, **opts)

    def test_threads_wait_policy(self):
        """threads=True links libgomp, which loads with OMP_WAIT_POLICY=
        passive unless the environment chose; results are the
        interpreter's. In a child process: libgomp reads its settings
        once."""
        cache = os.path.join(self.tmp, "cache")
        for env, policy, var in [({}, "OMP_WAIT_POLICY=passive", "passive"),
                                 ({"GOMP_SPINCOUNT": "1000"}, "GOMP_SPINCOUNT=1000", None),
                                 ({"OMP_WAIT_POLICY": "active"}, "OMP_WAIT_POLICY=active", "active")]:
            e = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
            e.update(env, PYTHONDONTWRITEBYTECODE="1")
            p = subprocess.run([sys.executable, "-c", THREADS_CHILD, PKG_PARENT,
                                example("laplacian_symbolic.tir"), cache], env=e, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
            self.assertEqual(p.returncode, 0, p.stderr.decode())
            r = json.loads(p.stdout.decode().splitlines()[-1])
            self.assertEqual(r, {"policy": policy, "env": var, "gomp": True, "same": True}, env)


class CacheDamageTest(ToolLogTest):
    """A damaged cache entry is rebuilt, never trusted nor blamed on the
    source. Each compile runs in a child process: this one must not map a
    shared object that the test then replaces (and dlopen would hand back
    the library it already has under that name)."""

    def child(self, src, cache):
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        p = subprocess.run([sys.executable, "-c", CHILD, PKG_PARENT, src, cache], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        return json.loads(p.stdout.decode().splitlines()[-1])

    @staticmethod
    def replace(path, data):
        """New contents under path (a new file, as a crash or another tool
        would leave it)."""
        with open(path + ".damage", "wb") as f:
            f.write(data)
        os.replace(path + ".damage", path)

    def fresh(self):
        cache = os.path.join(self.tmp, "cache")
        src = os.path.join(self.tmp, "lap.tir")
        shutil.copy(example("laplacian_symbolic.tir"), src)
        r = self.child(src, cache)
        self.assertEqual((r["hit"], r["close"]), (False, True))
        return src, cache, r["so"]

    def rebuilt(self, src, cache, what, tools):
        """The next compile rebuilds exactly with tools and computes the
        right thing; the one after is a cache hit."""
        n = len(self.calls())
        r = self.child(src, cache)
        self.assertEqual((r["hit"], r["close"]), (False, True), what)
        self.assertEqual(self.calls()[n:], tools, what)
        r = self.child(src, cache)
        self.assertEqual((r["hit"], r["close"]), (True, True), what)

    def test_damaged_shared_object(self):
        src, cache, so = self.fresh()
        with open(so, "rb") as f:
            good = f.read()
        with open(os.path.realpath(sys.executable), "rb") as f:
            foreign = f.read(1 << 18)  # an ELF file of this machine, not ours
        for what, data in [("truncated", good[:len(good) // 2]), ("empty", b""),
                           ("a text file", b"not a shared object\n"), ("another program", foreign),
                           ("one byte changed", good[:-1] + bytes([good[-1] ^ 1]))]:
            self.replace(so, data)
            self.rebuilt(src, cache, what, ["tc-opt", "llc", "cc"])
            with open(so, "rb") as f:
                now = f.read()
            with open(so + ".json") as f:
                self.assertEqual(hashlib.sha256(now).hexdigest(), json.load(f)["sha256"], what)
            self.assertNotEqual(now, data, what)

    def test_shared_object_that_does_not_load(self):
        # Cut after the ELF header, with its JSON rewritten to match: the
        # checks pass and dlopen fails ("file too short"); the object is
        # built again. (Cut later, dlopen maps pages past the end and the
        # process dies of SIGBUS: why the checksum comes before loading.)
        src, cache, so = self.fresh()
        with open(so, "rb") as f:
            bad = f.read()[:64]
        with open(so + ".json") as f:
            meta = json.load(f)
        meta.update(size=len(bad), sha256=hashlib.sha256(bad).hexdigest())
        self.replace(so + ".json", json.dumps(meta).encode())
        self.replace(so, bad)
        self.rebuilt(src, cache, "does not load", ["tc-opt", "llc", "cc"])

    def test_damaged_front_end(self):
        src, cache, so = self.fresh()
        d = os.path.dirname(so)
        abi = os.path.join(d, "module.abi.json")
        with open(abi, "rb") as f:
            good = f.read()
        for what, data in [("empty", b""), ("truncated", good[:len(good) // 3]),
                           ("foreign", b'{"abi_version": 1, "functions": []}\n')]:
            self.replace(abi, data)
            self.rebuilt(src, cache, what, ["tc-opt"])
        os.unlink(os.path.join(d, "front.json"))
        self.rebuilt(src, cache, "no front.json", ["tc-opt"])
        # An entry of another abi_version, checksums and all, is not read.
        other = good.replace(b'"abi_version": 1', b'"abi_version": 2')
        self.replace(abi, other)
        with open(os.path.join(d, "front.json")) as f:
            meta = json.load(f)
        meta.update(abi_sha256=hashlib.sha256(other).hexdigest(), abi_version=2)
        self.replace(os.path.join(d, "front.json"), json.dumps(meta).encode())
        self.rebuilt(src, cache, "another abi_version", ["tc-opt"])


class Producer:
    """An array that speaks only DLPack (no NumPy interface), backed by a
    NumPy array: the shape of a foreign array library's CPU array."""

    def __init__(self, a, device=(1, 0)):
        self.a = a
        self.device = device

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return self.device


def from_dlpack(x):
    """This module's from_dlpack, which like=Producer(...) finds."""
    return Producer(np.from_dlpack(x))


try:
    import torch
except ImportError:
    torch = None


class KernelPointers:
    """Records the data pointer of every tensor the compiled code is given."""

    def __enter__(self):
        from tir import _function
        self.seen, self._orig = [], _function._descriptor

        def record(a):
            self.seen.append(a.ctypes.data)
            return self._orig(a)
        _function._descriptor = record
        return self.seen

    def __exit__(self, *exc):
        from tir import _function
        _function._descriptor = self._orig


class DLPackTest(unittest.TestCase):
    """Arrays with __dlpack__ go in and out without a copy (docs/python.md)."""

    @classmethod
    def setUpClass(cls):
        cls.sym = tir.compile(example("laplacian_symbolic.tir"))
        cls.lap = cls.sym.laplacian

    def test_input_and_out_without_copy(self):
        g = rng(30).standard_normal((12, 10))
        res = np.full((10, 8), np.nan)
        with KernelPointers() as seen:
            r = self.lap(Producer(g), out=Producer(res))
        self.assertIsInstance(r, Producer)  # out= is returned as given
        self.assertEqual(seen, [g.ctypes.data, res.ctypes.data])
        np.testing.assert_allclose(res, lap5(g), rtol=1e-12, atol=1e-12)
        # The interpreter writes into the same memory.
        res[...] = np.nan
        self.lap(Producer(g), out=Producer(res), backend="interp")
        np.testing.assert_allclose(res, lap5(g), rtol=1e-12, atol=1e-12)

    def test_views_and_fields(self):
        grid = rng(31).standard_normal((14, 12))
        out = np.zeros((14, 12))
        # A padded producer placed with a Field; the result into the
        # interior of another, as a time step does.
        with KernelPointers() as seen:
            self.lap(tir.Field(Producer(grid), origin=1), out=tir.Field(Producer(out), origin=0), N=12, M=10)
        self.assertEqual(seen, [grid[1:13, 1:11].ctypes.data, out[1:11, 1:9].ctypes.data])
        np.testing.assert_allclose(out[1:11, 1:9], lap5(grid[1:13, 1:11]), rtol=1e-12, atol=1e-12)
        self.assertTrue((out[0] == 0).all() and (out[11:] == 0).all())

    def test_like(self):
        g = rng(32).standard_normal((6, 7))
        r = self.lap(Producer(g), like=Producer(g))
        self.assertIsInstance(r, Producer)
        np.testing.assert_allclose(r.a, lap5(g), rtol=1e-12, atol=1e-12)
        self.assertIsInstance(self.lap(Producer(g), like=g), np.ndarray)
        with self.assertRaisesRegex(tir.ArgumentError, "like= takes a NumPy array, a PyTorch tensor"):
            self.lap(g, like=[1.0])

    def test_refused(self):
        g = rng(33).standard_normal((6, 7))
        with self.assertRaisesRegex(tir.ArgumentError, "argument 'inp' is in GPU memory, and .* runs on the CPU"):
            self.lap(Producer(g, device=(2, 0)))
        with self.assertRaisesRegex(tir.ArgumentError, "argument 'inp' has dtype float32"):
            self.lap(Producer(g.astype(np.float32)))
        with self.assertRaisesRegex(tir.ArgumentError, "overlaps argument 'inp'"):
            self.lap(Producer(g), out=Producer(g[1:-1, 1:-1]))


@unittest.skipIf(torch is None, "PyTorch is not installed for this Python (make deps installs Debian's python3-torch)")
class TorchTest(unittest.TestCase):
    """PyTorch CPU tensors in and out without a copy (pointer identity)."""

    @classmethod
    def setUpClass(cls):
        cls.sym = tir.compile(example("laplacian_symbolic.tir"))
        cls.lap = cls.sym.laplacian

    def test_tensors_in_and_out(self):
        g = torch.randn(12, 10, dtype=torch.float64)
        res = torch.full((10, 8), float("nan"), dtype=torch.float64)
        with KernelPointers() as seen:
            r = self.lap(g, out=res)
        self.assertIs(r, res)
        self.assertEqual(seen, [g.data_ptr(), res.data_ptr()])
        np.testing.assert_allclose(res.numpy(), lap5(g.numpy()), rtol=1e-12, atol=1e-12)
        # A view of a padded tensor (strided), and a Field of one.
        big = torch.randn(14, 12, dtype=torch.float64)
        with KernelPointers() as seen:
            r = self.lap(big[1:13, 1:11], out=tir.Field(res, origin=-1))  # res[0, 0] is the point (1, 1)
        self.assertEqual(seen, [big[1:13, 1:11].data_ptr(), res.data_ptr()])
        np.testing.assert_allclose(res.numpy(), lap5(big.numpy()[1:13, 1:11]), rtol=1e-12, atol=1e-12)

    def test_like_torch(self):
        g = torch.randn(9, 8, dtype=torch.float64)
        r = self.lap(g, like=g)
        self.assertIsInstance(r, torch.Tensor)
        np.testing.assert_allclose(r.numpy(), lap5(g.numpy()), rtol=1e-12, atol=1e-12)
        self.assertIsInstance(self.lap(g), np.ndarray)

    def test_bool_f16_bf16(self):
        h = torch.tensor([1.5, -2.0, 0.25], dtype=torch.float16)
        b = torch.tensor([3, -4, 5], dtype=torch.int8)
        m = torch.tensor([True, False, True])
        g, c, q = tir.compile(os.path.join(HERE, "data", "elements.tir")).abs(h, b, m, like=h)
        self.assertEqual((g.dtype, c.dtype, q.dtype), (torch.float16, torch.int8, torch.bool))
        np.testing.assert_array_equal(g.numpy(), 2 * h.numpy())
        x = torch.tensor([1.0, -2.5, 3.0], dtype=torch.bfloat16)
        y = tir.compile(os.path.join(HERE, "data", "bf16.tir")).twice(x, like=x)
        self.assertEqual(y.dtype, torch.bfloat16)
        with self.assertRaisesRegex(tir.ArgumentError, r"has dtype torch.float32.*\.to\(torch.float64\)"):
            self.lap(torch.zeros(4, 4))

    def test_docs_example(self):
        """docs/python.md's PyTorch example runs as written from the repository's root."""
        with open(os.path.join(REPO, "docs", "python.md")) as f:
            block = next(b.partition("```")[0] for b in f.read().split("```python\n")[1:] if "import torch" in b)
        env = dict(os.environ, PYTHONPATH=PKG_PARENT, PYTHONDONTWRITEBYTECODE="1")
        p = subprocess.run([sys.executable, "-c", block + "\nassert r.shape == out.shape and bool((r == out).all())\n"],
                           cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.assertEqual(p.returncode, 0, p.stdout.decode())


COST = """
!grid = !tir.tensor<f64, I[0:N], J[0:M]>
!inner = !tir.tensor<f64, I[1:N-1], J[1:M-1]>
// J(u, y) = 1/2 |lap(u) - y|^2
tir.func @cost(%u: !grid, %y: !inner) -> !tir.tensor<f64> {
  %four = tir.constant 4.0 : f64
  %c  = tir.mul %four, %u
  %e  = tir.shift %u [I + 1]
  %w  = tir.shift %u [I - 1]
  %n  = tir.shift %u [J + 1]
  %s  = tir.shift %u [J - 1]
  %t0 = tir.sub %c, %e
  %t1 = tir.sub %t0, %w
  %t2 = tir.sub %t1, %n
  %t3 = tir.sub %t2, %s
  %d = tir.sub %t3, %y
  %sq = tir.mul %d, %d
  %sum = tir.reduce add %sq over [I, J]
  %half = tir.constant 0.5 : f64
  %j = tir.mul %half, %sum
  tir.return %j : !tir.tensor<f64>
}
// E(u) = 1/2 |lap(u)|^2
tir.func @energy(%u: !grid) -> !tir.tensor<f64> {
  %four = tir.constant 4.0 : f64
  %c  = tir.mul %four, %u
  %e  = tir.shift %u [I + 1]
  %w  = tir.shift %u [I - 1]
  %n  = tir.shift %u [J + 1]
  %s  = tir.shift %u [J - 1]
  %t0 = tir.sub %c, %e
  %t1 = tir.sub %t0, %w
  %t2 = tir.sub %t1, %n
  %t3 = tir.sub %t2, %s
  %sq = tir.mul %t3, %t3
  %sum = tir.reduce add %sq over [I, J]
  %half = tir.constant 0.5 : f64
  %j = tir.mul %half, %sum
  tir.return %j : !tir.tensor<f64>
}
"""


def lap5_adjoint(r):
    """The transpose of lap5 (the 5-point Laplacian of the interior),
    written independently: each interior residual goes back to the five
    points that read it."""
    g = np.zeros((r.shape[0] + 2, r.shape[1] + 2))
    g[1:-1, 1:-1] += 4 * r
    g[2:, 1:-1] -= r
    g[:-2, 1:-1] -= r
    g[1:-1, 2:] -= r
    g[1:-1, :-2] -= r
    return g


def vdot(a, b):
    return float(np.sum(np.asarray(a, np.float64) * np.asarray(b, np.float64)))


def taylor_slopes(f, jvp, x, v, h0, n=8):
    """The slopes log2(r(h)/r(h/2)) of r(h) = |f(x + h v) - f(x) - h J v|
    over n values of h halving from h0 (x and v tuples of arrays)."""
    fx, jv = f(*x), jvp
    res = []
    h = h0
    for _ in range(n):
        fh = f(*[a + h * b for a, b in zip(x, v)])
        res.append(np.linalg.norm(np.ravel(fh - fx - h * jv)))
        h /= 2
    return [float(np.log2(res[k] / res[k + 1])) for k in range(n - 1)], res


class DerivativesTest(unittest.TestCase):
    """f.jvp, f.vjp and tir.grad (docs/derivatives.md, "Interfaces"):
    the dot-product and Taylor tests, gradients computed in NumPy, the
    compiled code against the interpreter, the derivative module's cache."""

    @classmethod
    def setUpClass(cls):
        cls.sym = tir.compile(example("laplacian_symbolic.tir"))
        cls.cost = tir.compile_source(COST, name="cost.tir")

    def test_dot_product_laplacian(self):
        lap = self.sym.laplacian
        for seed in (1, 2, 3):
            r = rng(seed)
            u, v = r.standard_normal((12, 10)), r.standard_normal((12, 10))
            w = r.standard_normal((10, 8))
            out = {}
            for backend in ("compiled", "interp"):
                y, jv = lap.jvp(u, v, backend=backend)        # @f's result, then J v
                jtw = lap.vjp(u, w, backend=backend)          # one float argument: one array
                self.assertEqual((y.shape, jv.shape, jtw.shape), ((10, 8), (10, 8), (12, 10)))
                np.testing.assert_array_equal(y, lap(u))
                np.testing.assert_allclose(jv, lap5(v), rtol=1e-12, atol=1e-12)   # linear: J v = lap(v)
                np.testing.assert_allclose(jtw, lap5_adjoint(w), rtol=1e-12, atol=1e-12)
                a, b = vdot(jv, w), vdot(v, jtw)
                self.assertLess(abs(a - b), 1e-12 * max(abs(a), abs(b)), (backend, seed, a, b))
                out[backend] = (y, jv, jtw)
            for c, i in zip(out["compiled"], out["interp"]):
                np.testing.assert_array_equal(c, i)
        # By name: the tangent of 'inp' is 'dinp'; out= as for any call.
        buf = np.empty((10, 8))
        y, jv = lap.jvp(inp=u, dinp=v, out=(None, buf))
        self.assertIs(jv, buf)
        np.testing.assert_array_equal(jv, lap.jvp(u, v)[1])

    def test_dot_product_f32(self):
        lap = tir.compile(example("laplacian.tir")).laplacian
        r = rng(4)
        u, v = (r.standard_normal((7, 9, 9)).astype(np.float32) for _ in range(2))
        w = r.standard_normal((5, 7, 9)).astype(np.float32)
        y, jv = lap.jvp(u, v)
        jtw = lap.vjp(u, w)
        self.assertEqual((jv.dtype, jtw.dtype), (np.float32, np.float32))
        a, b = vdot(jv, w), vdot(v, jtw)
        self.assertLess(abs(a - b), 1e-5 * max(abs(a), abs(b)))
        np.testing.assert_array_equal(jtw, lap.vjp(u, w, backend="interp"))

    def test_taylor(self):
        # A quadratic cost (its residual is h^2/2 |lap v|^2) and the
        # tridiagonal solver (a rational function of its coefficients).
        r = rng(5)
        u, y = r.standard_normal((12, 10)), r.standard_normal((10, 8))
        du, dy = r.standard_normal((12, 10)), r.standard_normal((10, 8))
        cost = self.cost.cost
        _, dj = cost.jvp(u, y, du, dy)
        slopes, _ = taylor_slopes(cost, dj, (u, y), (du, dy), 1e-1)
        for s in slopes[-5:]:
            self.assertAlmostEqual(s, 2.0, delta=0.1, msg=slopes)
        tri = tir.compile(example("tridiag.tir")).solve_tridiag
        shape = (3, 7, 5)
        a, c, d = (r.uniform(-1, 1, shape) for _ in range(3))
        b = 4 + r.uniform(0, 1, shape)
        tangents = [r.standard_normal(shape) for _ in range(4)]
        for backend in ("compiled", "interp"):
            res = tri.jvp(a, b, c, d, *tangents, backend=backend)
            self.assertEqual(len(res), 2)
            slopes, _ = taylor_slopes(lambda *x: tri(*x, backend=backend), res[1], (a, b, c, d), tangents, 1e-3)
            for s in slopes[-5:]:
                self.assertAlmostEqual(s, 2.0, delta=0.1, msg=(backend, slopes))
            # and the dot-product test with the four cotangents
            w = r.standard_normal(shape)
            cots = tri.vjp(a, b, c, d, w, backend=backend)
            self.assertEqual(len(cots), 4)
            lhs, rhs = vdot(res[1], w), sum(vdot(t, g) for t, g in zip(tangents, cots))
            self.assertLess(abs(lhs - rhs), 1e-12 * max(abs(lhs), abs(rhs)))

    def test_grad(self):
        r = rng(6)
        u, y = r.standard_normal((9, 11)), r.standard_normal((7, 9))
        res = lap5(u) - y
        g = tir.grad(self.cost.cost)
        for backend in ("compiled", "interp"):
            gu, gy = g(u, y, backend=backend)                 # two float arguments: a tuple
            np.testing.assert_allclose(gu, lap5_adjoint(res), rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(gy, -res, rtol=1e-12, atol=1e-12)
            gu2, gy2 = g(y=y, u=u, backend=backend)
            np.testing.assert_array_equal(gu2, gu)
            np.testing.assert_array_equal(gy2, gy)
        np.testing.assert_array_equal(g(u, y)[0], g(u, y, backend="interp")[0])
        e = tir.grad(self.cost.energy)                        # one float argument: one array
        ge = e(u)
        self.assertIsInstance(ge, np.ndarray)
        np.testing.assert_allclose(ge, lap5_adjoint(lap5(u)), rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(ge, e(u, backend="interp"))
        # The gradient against finite differences, along a random direction.
        v = r.standard_normal(u.shape)
        h = 1e-6
        fd = (self.cost.energy(u + h * v) - self.cost.energy(u - h * v)) / (2 * h)
        self.assertAlmostEqual(float(fd), vdot(ge, v), delta=1e-6 * abs(float(fd)))
        with self.assertRaisesRegex(ValueError, "one 0-d float result"):
            tir.grad(self.sym.laplacian)
        with self.assertRaisesRegex(TypeError, "tir.Function"):
            tir.grad(lambda x: x)

    def test_docs_example(self):
        """docs/python.md's example of jvp, vjp and grad runs as written
        from the repository's root."""
        example("laplacian_symbolic.tir")
        with open(os.path.join(REPO, "docs", "python.md")) as f:
            block = next(b.partition("```")[0] for b in f.read().split("```python\n")[1:] if "tir.grad" in b)
        check = "\nassert gx0.shape == x0.shape and gy.shape == y.shape and jtw.shape == u.shape\n"
        env = dict(os.environ, PYTHONPATH=PKG_PARENT, PYTHONDONTWRITEBYTECODE="1")
        p = subprocess.run([sys.executable, "-c", block + check], cwd=REPO, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.assertEqual(p.returncode, 0, p.stdout.decode())

    def test_functions_without_derivatives(self):
        """In kernels.tir, @iadd (integers only) gets no derivative
        functions; the others do, and a tangent of a 0-d argument is a
        number."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", tir.CompileWarning)   # @pick's, KernelsTest checks it
            mod = tir.compile(KERNELS, backend="interp", derivatives=True)
        with self.assertRaisesRegex(tir.TirError, "@iadd has no @iadd_jvp: .* float argument and a float result"):
            mod.iadd.jvp(np.zeros((2, 4), np.int32), np.zeros(4, np.int32))
        x, y = rng(9).standard_normal(5), rng(10).standard_normal(5)
        dx, dy = rng(11).standard_normal(5), rng(12).standard_normal(5)
        q, s, dq, ds = mod.stats.jvp(x, y, 2.5, dx, dy, 0.5)
        np.testing.assert_allclose(dq, 2.5 * (dx * y + x * dy) + 0.5 * x * y, rtol=1e-12)
        np.testing.assert_allclose(ds, np.sum(dx * y + x * dy), rtol=1e-12)

    def test_derivatives_module_and_cache(self):
        cache = tempfile.mkdtemp(prefix="tir-deriv-cache-")
        self.addCleanup(shutil.rmtree, cache, True)
        path = example("laplacian_symbolic.tir")
        mod = tir.compile(path, derivatives=True, cache_dir=cache)
        self.assertTrue(mod.derivatives)
        self.assertEqual(sorted(mod.functions), ["laplacian", "laplacian_jvp", "laplacian_vjp"])
        self.assertIs(mod.with_derivatives(), mod)
        self.assertEqual([f.name for f in mod.laplacian_jvp.inputs], ["inp", "dinp"])
        self.assertTrue(all("--derivatives" in cmd for cmd in mod.tools_run if "tc-opt" in cmd[0]), mod.tools_run)
        u, w = rng(7).standard_normal((8, 6)), rng(8).standard_normal((6, 4))
        np.testing.assert_array_equal(mod.laplacian.vjp(u, w), mod.laplacian_vjp(u, w))
        np.testing.assert_array_equal(mod.laplacian_vjp(u, w, backend="interp"), mod.laplacian_vjp(u, w))
        with self.assertRaisesRegex(tir.TirError, "@laplacian_vjp has no @laplacian_vjp_vjp: tc-opt"):
            mod.laplacian_vjp.vjp(u, u, w)
        # Without derivatives=True: another cache entry, and f.vjp compiles
        # the module with derivatives on first use, which is the entry above.
        plain = tir.compile(path, cache_dir=cache)
        self.assertFalse(plain.derivatives)
        self.assertFalse(plain.cache_hit)
        self.assertNotEqual(plain.cache_dir, mod.cache_dir)
        self.assertEqual(sorted(plain.functions), ["laplacian"])
        np.testing.assert_array_equal(plain.laplacian.vjp(u, w), mod.laplacian_vjp(u, w))
        self.assertIs(plain.with_derivatives(), plain.with_derivatives())
        self.assertEqual(plain.with_derivatives().cache_dir, mod.cache_dir)
        self.assertTrue(plain.with_derivatives().cache_hit)
        again = tir.compile(path, derivatives=True, cache_dir=cache)
        self.assertTrue(again.cache_hit)
        # The interpreter backend: tc-run --derivatives, nothing native built.
        interp = tir.compile(path, backend="interp", cache_dir=tempfile.mkdtemp(dir=cache))
        g = interp.laplacian.vjp(u, w)
        np.testing.assert_array_equal(g, mod.laplacian_vjp(u, w))
        d = interp.with_derivatives()
        self.assertEqual(d.backend, "interp")
        self.assertEqual([cmd for cmd in d.tools_run if "--emit=abi-json" not in cmd], [])
        with self.assertRaisesRegex(ValueError, "derivatives must be True or False"):
            tir.compile(path, derivatives="yes")


class TutorialTest(unittest.TestCase):
    def test_installed_or_tree(self):
        """The package is the tree's, or with $TIR_TEST_INSTALLED an
        installed copy with its metadata."""
        tree = os.path.join(REPO, "python")
        if not os.environ.get("TIR_TEST_INSTALLED"):
            self.assertEqual(PKG_PARENT, tree)
            return
        self.assertNotEqual(PKG_PARENT, tree)
        from importlib import metadata
        self.assertEqual(metadata.version("tir"), "0.1.0")
        self.assertIn("numpy", " ".join(metadata.requires("tir")))

    def test_python_m_tir(self):
        """python -m tir runs like tc-run."""
        env = dict(os.environ, PYTHONPATH=PKG_PARENT, PYTHONDONTWRITEBYTECODE="1")
        p = subprocess.run([sys.executable, "-m", "tir", example("laplacian.tir"), "--random", "1", "--check"],
                           cwd=tempfile.gettempdir(), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.assertEqual(p.returncode, 0, p.stdout.decode())
        self.assertIn("check: compiled code matches the interpreter", p.stdout.decode())
        p = subprocess.run([sys.executable, "-m", "tir", example("laplacian.tir"), "--bogus"],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.assertNotEqual(p.returncode, 0, p.stdout.decode())

    def test_docs_python_md(self):
        """docs/python.md's first example (at most 5 lines) runs as written
        from the repository root, and so does the NumPy check after it."""
        example("laplacian.tir")
        with open(os.path.join(REPO, "docs", "python.md")) as f:
            doc = f.read()
        blocks = [b.partition("```")[0] for b in doc.split("```python\n")[1:3]]
        self.assertEqual(len(blocks), 2, "docs/python.md should start with two ```python blocks")
        code = [l for l in blocks[0].splitlines() if l.strip() and not l.lstrip().startswith("#")]
        self.assertLessEqual(len(code), 5, "the tutorial's first example should take at most 5 lines")
        env = dict(os.environ, PYTHONPATH=PKG_PARENT, PYTHONDONTWRITEBYTECODE="1")
        p = subprocess.run([sys.executable, "-c", "".join(blocks)], cwd=REPO, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.assertEqual(p.returncode, 0, p.stdout.decode())


if __name__ == "__main__":
    unittest.main()
