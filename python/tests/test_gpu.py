"""Tests of the package's nvptx64 path: a module compiled with
target="nvptx64" called on arrays in GPU memory.

They run where there is something to call: under the CUDA driver emulator
of the tests (test/python_test.go sets TIR_CUDA_DRIVER and
TIR_TEST_FAKE_DEVICE=1; the arrays are then fakedevice.Arrays, host
memory behind __cuda_array_interface__), or on a machine with a GPU and
CuPy and/or PyTorch (test/gpu/run.sh). Elsewhere they are skipped, saying
why. Results are compared with the interpreter (backend="interp", on host
copies) and with NumPy.
"""

import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
if not os.environ.get("TIR_TEST_INSTALLED"):
    sys.path.insert(0, os.path.join(REPO, "python"))

import tir  # noqa: E402

SOURCE = os.path.join(HERE, "data", "gpu.tir")


class Kit:
    """How a test makes and reads device arrays of one package."""

    def __init__(self, name, to_device, to_host, pointer, kind):
        self.name, self.to_device, self.to_host, self.pointer, self.kind = name, to_device, to_host, pointer, kind


def kits():
    """The array packages to test with, and why there are none."""
    if os.environ.get("TIR_TEST_FAKE_DEVICE") == "1":
        import fakedevice
        return [Kit("emulated", fakedevice.asarray, fakedevice.asnumpy, lambda x: x.data_ptr, fakedevice.Array)], ""
    found, why = [], []
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() > 0:
            found.append(Kit("cupy", cupy.asarray, cupy.asnumpy, lambda x: x.data.ptr, cupy.ndarray))
    except Exception as e:  # no CuPy, or no GPU
        why.append("CuPy: %s" % e)
    try:
        import torch
        if torch.cuda.is_available():
            found.append(Kit("torch", lambda a: torch.from_numpy(np.array(a, order="C")).to("cuda"),
                             lambda x: x.detach().cpu().numpy(), lambda x: x.data_ptr(), torch.Tensor))
        else:
            why.append("PyTorch: no CUDA device")
    except Exception as e:
        why.append("PyTorch: %s" % e)
    return found, "; ".join(why)


KITS, WHY = kits()
_state = {}


def setUpModule():
    if not KITS:
        raise unittest.SkipTest("no GPU array package with a GPU, and not under the driver emulator"
                                " (TIR_TEST_FAKE_DEVICE): %s" % WHY)
    for t in ("tc-opt", "tc-run", "llc", "cc"):
        try:
            tir.find_tool(t)
        except tir.CompileError as e:
            raise unittest.SkipTest("the tir package needs %s: %s" % (t, e))
    tmp = tempfile.mkdtemp(prefix="tir-gpu-test-")
    _state["tmp"] = tmp
    # The functions and their derivatives as plain functions, as
    # test/python_test.go compiles them for the emulator.
    src = os.path.join(tmp, "gpu_derivatives.tir")
    subprocess.run([tir.find_tool("tc-opt"), "--derivatives", SOURCE, "-o", src], check=True)
    _state["mod"] = tir.compile(src, target="nvptx64", cache_dir=os.path.join(tmp, "cache"))


def tearDownModule():
    import shutil
    shutil.rmtree(_state.get("tmp", ""), ignore_errors=True)


def lap_numpy(u):
    return 4.0 * u[1:-1, 1:-1] - u[2:, 1:-1] - u[:-2, 1:-1] - u[1:-1, 2:] - u[1:-1, :-2]


class GPUTest(unittest.TestCase):
    def each_kit(self):
        for k in KITS:
            with self.subTest(package=k.name):
                yield k

    def test_module_options(self):
        mod = _state["mod"]
        self.assertEqual(mod.target, "nvptx64")
        self.assertEqual(mod.cpu, "sm_80")
        with self.assertRaises(ValueError):
            tir.compile(SOURCE, target="nvptx64", threads=True)
        with self.assertRaises(ValueError):
            tir.compile(SOURCE, target="nvptx64", mcpu="znver3")

    def test_stencil_matches_numpy_and_interpreter(self):
        rng = np.random.default_rng(1)
        u = rng.standard_normal((37, 45))
        for k in self.each_kit():
            du = k.to_device(u)
            r = _state["mod"].lap(du)
            self.assertIsInstance(r, k.kind)
            got = k.to_host(r)
            np.testing.assert_array_equal(got, lap_numpy(u))
            ri = _state["mod"].lap(du, backend="interp")
            self.assertIsInstance(ri, k.kind)
            np.testing.assert_array_equal(k.to_host(ri), got)

    def test_out_is_written_in_place(self):
        u = np.random.default_rng(2).standard_normal((20, 30))
        for k in self.each_kit():
            out = k.to_device(np.zeros((18, 28)))
            r = _state["mod"].lap(k.to_device(u), out=out)
            self.assertIs(r, out)
            self.assertEqual(k.pointer(r), k.pointer(out))
            np.testing.assert_array_equal(k.to_host(out), lap_numpy(u))

    def test_field_with_a_halo(self):
        # An array whose index 1 holds point 0: the argument I[0:N] is its
        # interior plus one ring, passed as a view, no copy.
        big = np.random.default_rng(3).standard_normal((16, 19))
        for k in self.each_kit():
            f = tir.Field(k.to_device(big), origin=1)
            r = _state["mod"].lap(f, N=14, M=17)
            np.testing.assert_array_equal(k.to_host(r), lap_numpy(big[1:15, 1:18]))

    def test_scalar_argument_is_copied_to_the_device(self):
        x = np.arange(10, dtype=np.float32) - 3
        for k in self.each_kit():
            r = _state["mod"].scale(k.to_device(x), 2.5)
            np.testing.assert_array_equal(k.to_host(r), np.float32(2.5) * x)

    def test_vjp_dot_product(self):
        # <J v, w> = <v, J^T w> for @lap_jvp and @lap_vjp run on the device.
        rng = np.random.default_rng(4)
        u, v, w = rng.standard_normal((12, 15)), rng.standard_normal((12, 15)), rng.standard_normal((10, 13))
        mod = _state["mod"]
        for k in self.each_kit():
            _, jv = mod.lap_jvp(k.to_device(u), k.to_device(v))
            g = mod.lap_vjp(k.to_device(u), k.to_device(w))
            lhs, rhs = np.vdot(k.to_host(jv), w), np.vdot(v, k.to_host(g))
            self.assertLessEqual(abs(lhs - rhs), 1e-12 * max(abs(lhs), 1.0))
            gi = mod.lap_vjp(k.to_device(u), k.to_device(w), backend="interp")
            np.testing.assert_array_equal(k.to_host(gi), k.to_host(g))

    def test_host_arrays_are_refused(self):
        mod = _state["mod"]
        with self.assertRaisesRegex(tir.ArgumentError, "GPU memory"):
            mod.lap(np.zeros((5, 5)))
        for k in self.each_kit():
            du = k.to_device(np.zeros((6, 8)))
            with self.assertRaisesRegex(tir.ArgumentError, "not contiguous"):
                mod.lap(du[:, ::2])
            with self.assertRaisesRegex(tir.ArgumentError, "dtype float32"):
                mod.lap(k.to_device(np.zeros((5, 5), np.float32)))
            with self.assertRaisesRegex(tir.ArgumentError, "overlaps argument"):
                mod.lap(du, out=du[1:-1, 1:-1])

    def test_cpu_module_refuses_device_arrays(self):
        # The interpreter backend builds nothing (a GPU machine may have no
        # LLVM for its CPU); the arguments are checked all the same.
        mod = tir.compile(SOURCE, backend="interp", cache_dir=os.path.join(_state["tmp"], "cache"))
        for k in self.each_kit():
            with self.assertRaisesRegex(tir.ArgumentError, "runs on the CPU"):
                mod.lap(k.to_device(np.zeros((5, 5))))


if __name__ == "__main__":
    unittest.main()
