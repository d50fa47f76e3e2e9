"""Calling a compiled function (or the interpreter) on NumPy arrays, and
on any array that speaks DLPack (PyTorch CPU tensors), viewed as NumPy
arrays without a copy."""

import ctypes
import os
import re
import subprocess
import sys
import tempfile
import threading
import warnings

import numpy as np

from ._errors import ArgumentError, CopyWarning, RunError, TirError
from . import _build
from . import _device

_BACKENDS = ("compiled", "interp")


def _bf16_to_f32(bits):
    """bfloat16 bits (uint16) to the float32 values they are."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


def _f32_to_bf16(x):
    """float32 values that are bfloat16s (tc-run writes them exactly) to their bits."""
    return (np.ascontiguousarray(x, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)


# DLPack device types whose memory the CPU reads: kDLCPU, kDLCUDAHost
# (pinned), kDLROCMHost.
_DLPACK_HOST = (1, 3, 11)


def _is_dlpack(v):
    return hasattr(v, "__dlpack__") and not isinstance(v, (np.ndarray, np.generic))


# tir element -> the PyTorch dtype holding it, where its name is not NumPy's.
_TORCH_DTYPES = {"bf16": "bfloat16", "i1": "bool"}


def _is_torch(v):
    return type(v).__module__.partition(".")[0] == "torch"


def _from_dlpack(v, what, writeable=False):
    """A NumPy view of a DLPack producer's memory (no copy). NumPy marks
    the arrays numpy.from_dlpack makes read-only (DLPack before 1.0 cannot
    say whether memory may be written): with writeable, the view is made
    again over the same addresses, writeable, for results. PyTorch's bool
    and bfloat16 tensors, which NumPy's DLPack import lacks, are viewed
    through their bytes (uint8 as bool, int16 as the uint16 bits)."""
    dev = getattr(v, "__dlpack_device__", None)
    if dev is not None:
        kind = int(dev()[0])
        if kind not in _DLPACK_HOST:
            raise ArgumentError("%s is in the memory of a device (DLPack device type %d), the compiled code runs"
                                " on the CPU: pass a CPU array (tensor.cpu())" % (what, kind))
    if not hasattr(np, "from_dlpack"):
        raise ArgumentError("%s: a %s is passed through DLPack, which needs NumPy 1.22 or later (this is %s)"
                            % (what, type(v).__name__, np.__version__))
    view = None
    if _is_torch(v):
        import torch
        if v.dtype == torch.bool:
            v, view = v.view(torch.uint8), np.bool_
        elif v.dtype == torch.bfloat16:
            v, view = v.view(torch.int16), np.uint16
    try:
        a = np.from_dlpack(v)
    except (TypeError, ValueError, RuntimeError, BufferError) as e:
        raise ArgumentError("%s: NumPy cannot view this %s through DLPack: %s"
                            % (what, type(v).__name__, e)) from None
    if view is not None:
        a = a.view(view)
    if writeable and not a.flags.writeable:
        a = _writeable_view(a)
    return a


def _writeable_view(a):
    """A writeable ndarray over the memory of a (which must be writeable:
    the caller's own buffer), holding a reference to a."""
    if a.size == 0:
        return np.empty(a.shape, a.dtype)  # nothing is ever written
    lo = sum(min(0, (n - 1) * s) for n, s in zip(a.shape, a.strides))
    hi = sum(max(0, (n - 1) * s) for n, s in zip(a.shape, a.strides)) + a.itemsize
    buf = (ctypes.c_char * (hi - lo)).from_address(a.ctypes.data + lo)
    buf._keep = a  # the DLPack capsule keeps the producer's memory alive
    return np.ndarray(a.shape, a.dtype, buffer=buf, offset=-lo, strides=a.strides)


def _converter(like, what):
    """How to return a result (a NumPy array) as the kind of array like
    is: None for NumPy, torch.from_dlpack for a PyTorch tensor, else the
    from_dlpack of like's package (imported already, since like is one of
    its arrays)."""
    if like is None or isinstance(like, np.ndarray):
        return None
    if _is_torch(like):
        import torch

        def to_torch(a, elem):
            if elem == "bf16":
                return torch.from_dlpack(a.view(np.int16)).view(torch.bfloat16)
            if elem == "i1":
                return torch.from_dlpack(a.view(np.uint8)).view(torch.bool)
            return torch.from_dlpack(a)
        return to_torch
    pkg = sys.modules.get(type(like).__module__.partition(".")[0])
    conv = getattr(pkg, "from_dlpack", None)
    if not _is_dlpack(like) or conv is None:
        raise ArgumentError("%s: like= takes a NumPy array, a PyTorch tensor or an array of a package with"
                            " from_dlpack, got %s" % (what, type(like).__name__))
    return lambda a, elem: conv(a)


class Field:
    """A NumPy array placed on the integer lattice of a tir tensor.

    Index `origin[d]` of dimension d holds point 0, so the array covers the
    points `[-origin[d] : shape[d] - origin[d]]`. `start` gives the same
    as the first point instead (`start = -origin`). Both take one integer
    for every dimension, a sequence, or a dict by dimension name (missing
    names are 0):

        grid = np.zeros((N + 2, M + 2))      # N x M interior, a halo of 1
        Field(grid, origin=1)                # grid[1, 1] is point (0, 0)
        Field(grid, origin={"I": 1, "J": 1}) # the same, by dimension name
        Field(grid, start=(-1, -1))          # the same, as the intervals' starts

    A function passes the compiled code (or the interpreter) the part of
    the Field its argument's intervals ask for, without copying: a padded
    array whose interior is I[0:N] serves an argument of type I[-1:N+1]
    (or any narrower one). Size symbols are inferred from a Field whose
    lower bound is the argument's; when the Field holds more points than
    the argument reads below, pass them explicitly. Results can be written
    into a Field too (`out=Field(...)`).

    `array` may also be any array with `__dlpack__` (a PyTorch CPU
    tensor): the Field holds a NumPy view of its memory, no copy.
    """

    def __init__(self, array, origin=None, start=None):
        # An array in GPU memory is kept as it is (for a module compiled
        # for nvptx64); a host DLPack array is viewed as a NumPy array.
        on_device = _device.is_device_array(array)
        if _is_dlpack(array) and not on_device:
            array = _from_dlpack(array, "Field", writeable=True)
        if not isinstance(array, np.ndarray) and not on_device:
            raise TypeError("Field: expected a NumPy array, an array with __dlpack__ or one in GPU memory, got %s"
                            % type(array).__name__)
        if origin is not None and start is not None:
            raise TypeError("Field: give origin or start, not both")
        self.array = array
        if start is not None:
            self._origin, self._negate = start, True
        else:
            self._origin, self._negate = (0 if origin is None else origin), False

    def origin(self, dims=None):
        """The origin as a tuple (dims: the dimension names, for a dict)."""
        o = self._origin
        nd = self.array.ndim
        if isinstance(o, dict):
            if dims is None:
                raise TypeError("Field: an origin by dimension name needs the dimension names")
            unknown = set(o) - set(dims)
            if unknown:
                raise ArgumentError("Field origin names dimensions %s, the argument has %s"
                                    % (sorted(unknown), list(dims)))
            t = tuple(int(o.get(d, 0)) for d in dims)
        elif isinstance(o, (int, np.integer)):
            t = (int(o),) * nd
        else:
            t = tuple(int(x) for x in o)
            if len(t) != nd:
                raise ArgumentError("Field origin %r has %d entries for a %d-dimensional array" % (o, len(t), nd))
        if self._negate:
            t = tuple(-x for x in t)
        return t

    def intervals(self, dims=None):
        """The points covered, [(lo, hi)] per dimension."""
        return [(-o, n - o) for o, n in zip(self.origin(dims), self.array.shape)]

    def __repr__(self):
        try:
            iv = " x ".join("[%d:%d]" % p for p in self.intervals())
        except TypeError:
            iv = "origin %r" % (self._origin,)
        return "Field(%s %s on %s)" % (self.array.dtype, self.array.shape, iv)


_desc_classes = {}


def _desc_class(rank):
    """MLIR's strided memref descriptor of a rank (pointers as void *)."""
    if rank not in _desc_classes:
        class Desc(ctypes.Structure):
            _fields_ = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                        ("offset", ctypes.c_int64), ("sizes", ctypes.c_int64 * rank),
                        ("strides", ctypes.c_int64 * rank)]
        Desc.__name__ = "tir_desc_%d" % rank
        _desc_classes[rank] = Desc
    return _desc_classes[rank]


def _data_pointer(a):
    return a.ptr if isinstance(a, _device.DeviceArray) else a.ctypes.data


def _descriptor(a):
    d = _desc_class(a.ndim)()
    d.allocated = d.aligned = _data_pointer(a)
    d.offset = 0
    d.sizes[:] = list(a.shape)
    strides = [s // a.itemsize for s in a.strides]
    # The stride of a dimension of extent 1 is never used; the ABI wants
    # the last one to be 1.
    for i, n in enumerate(a.shape):
        if n <= 1:
            strides[i] = 1 if i == a.ndim - 1 else strides[i]
    d.strides[:] = strides
    return d


def _layout_problem(a):
    """Why the ABI cannot describe a's memory as it is, or None."""
    if a.ndim == 0:
        return None if a.flags.aligned else "it is misaligned"
    if a.size == 0:
        return None
    if not a.flags.aligned:
        return "it is misaligned"
    for s, n in zip(a.strides, a.shape):
        if n > 1 and (s < 0 or s % a.itemsize):
            return "its strides %s are negative or not whole elements" % (a.strides,)
    if a.shape[-1] > 1 and a.strides[-1] != a.itemsize:
        return ("its last dimension is not contiguous (stride %d bytes for %d-byte elements)"
                % (a.strides[-1], a.itemsize))
    return None


class _Call:
    """The arguments of one call, bound and checked."""

    def __init__(self, fn):
        self.fn = fn
        self.arrays = {}   # input index -> np.ndarray (the exact points)
        self.env = {}      # symbol and unknown-extent values


class Function:
    """An exported function of a compiled module, called on NumPy arrays
    (or any array with `__dlpack__`, such as a PyTorch CPU tensor, viewed
    without a copy):

        f(a, b, N=64, out=None, backend=None, like=None)

    Inputs come by position or by name; size symbols are inferred from the
    arrays' shapes where the types determine them, or given by name. A
    result is allocated (shape from the ABI's f_result_shape) unless `out`
    gives it (an array or a Field; a tuple of them for several results,
    None for one to allocate), in which case `out` is returned. One result
    is returned as an array, several as a tuple. `backend="interp"` runs
    the reference interpreter through tc-run instead of the compiled code.
    `like=` an array returns the allocated results as its kind (a PyTorch
    tensor for a tensor: torch.from_dlpack, no copy).
    """

    def __init__(self, module, sig):
        self.module = module
        self.signature = sig
        self.name = sig.name
        self._lib_fn = None
        self._names = {}
        for p in sig.inputs:
            self._names.setdefault(p.name, ("arg", p.index))
            self._names.setdefault(p.cname, ("arg", p.index))
        for s, c in zip(sig.symbols, sig.symbol_cnames):
            self._names.setdefault(s, ("sym", s))
            self._names.setdefault(c, ("sym", s))
        for v in sig.unknown:
            self._names.setdefault(v, ("sym", v))
        self.__doc__ = self._doc()

    # -- description -----------------------------------------------------

    def _doc(self):
        sig = self.signature
        lines = ["@%s, compiled from %s (tir.Function)." % (sig.name, self.module.name), "", "Arguments:"]
        for p in sig.inputs:
            lines.append("  %-8s %-4s %-8s %s" % (p.name, p.elem, p.dtype, p.domain()))
        lines.append("Results:")
        for p in sig.results:
            lines.append("  %-8s %-4s %-8s %s" % (p.name, p.elem, p.dtype, p.domain()))
        if sig.symbols:
            lines.append("Size symbols: %s" % ", ".join(sig.symbol_names))
        return "\n".join(lines)

    def __repr__(self):
        return "<tir.Function %r>" % (self.signature,)

    @property
    def inputs(self):
        return list(self.signature.inputs)

    @property
    def results(self):
        return list(self.signature.results)

    @property
    def symbols(self):
        return list(self.signature.symbol_names)

    # -- binding ---------------------------------------------------------

    def _error(self, msg, **kw):
        return ArgumentError("@%s: %s" % (self.name, msg), **kw)

    def _bind(self, args, kwargs):
        sig = self.signature
        if len(args) > len(sig.inputs):
            raise self._error("takes %d arguments (%s), got %d" % (
                len(sig.inputs), ", ".join(p.name for p in sig.inputs), len(args)))
        given = dict(enumerate(args))
        syms = {}
        for k, v in kwargs.items():
            what = self._names.get(k)
            if what is None:
                raise self._error("no argument or size symbol '%s' (arguments: %s; size symbols: %s)" % (
                    k, ", ".join(p.name for p in sig.inputs) or "none",
                    ", ".join(sig.symbol_names) or "none"))
            kind, x = what
            if kind == "arg":
                if x in given:
                    raise self._error("argument '%s' is given twice" % sig.inputs[x].name, argument=sig.inputs[x].name)
                given[x] = v
            else:
                if x in syms:
                    raise self._error("size symbol %s is given twice" % k)
                if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                    raise self._error("size symbol %s must be an integer, got %r" % (k, v))
                syms[x] = int(v)
        for p in sig.inputs:
            if p.index not in given:
                raise self._error("missing argument '%s' (%s %s)" % (p.name, p.elem, p.domain()), argument=p.name)
        return [given[p.index] for p in sig.inputs], syms

    def _array(self, p, v, is_out):
        """(array, origin or None) for a parameter; checks dtype and rank.
        The array is a NumPy array, or for a module compiled for nvptx64 a
        DeviceArray (a 0-d input may be a host scalar there: _prepare_device
        copies it to the device)."""
        origin = None
        what = p.what() if not is_out else "%s (out=)" % p.what()
        arg = p.name if p.is_input else None
        src = v.array if isinstance(v, Field) else v
        gpu = self.module.target == "nvptx64"
        if _device.is_device_array(src):
            if not gpu:
                raise self._error("%s is in GPU memory, and %s runs on the CPU: pass a CPU array, or compile with"
                                  " target=\"nvptx64\"" % (what, self.module.name), argument=arg)
            a = _device.DeviceArray(src, "@%s: %s" % (self.name, what))
        elif gpu and (is_out or p.rank != 0 or isinstance(v, Field)):
            raise self._error("%s: %s was compiled for nvptx64 and takes arrays in GPU memory (a CuPy array, a"
                              " PyTorch CUDA tensor, anything with __cuda_array_interface__), got %s" % (
                                  what, self.module.name, type(src).__name__), argument=arg)
        elif isinstance(v, Field):
            a = v.array
        elif isinstance(v, np.ndarray):
            a = v
        elif p.rank == 0 and not is_out and isinstance(v, (bool, int, float)) and not isinstance(v, np.generic):
            if p.elem == "bf16" or (isinstance(v, float) and np.dtype(p.dtype).kind in "biu"):
                raise self._error("%s is %s: pass a 0-d array of %s, not the Python %s %r" % (
                    what, p.elem, p.dtype, type(v).__name__, v), argument=p.name)
            a = np.array(v, dtype=p.dtype)
        elif isinstance(v, np.generic) and not is_out and p.rank == 0:
            a = np.asarray(v)
        elif _is_dlpack(v) and not gpu:
            a = _from_dlpack(v, "@%s: %s" % (self.name, what), writeable=is_out)
        else:
            raise self._error("%s: expected a NumPy array, an array with __dlpack__ (a PyTorch tensor) or a"
                              " tir.Field, got %s" % (what, type(v).__name__), argument=arg)
        if isinstance(v, Field) and a.ndim == p.rank:
            origin = v.origin([d.name for d in p.dims])
        want = np.dtype(p.dtype)
        if a.dtype != want:
            if _is_torch(src):
                have, fix = src.dtype, ".to(torch.%s)" % _TORCH_DTYPES.get(p.elem, want.name)
            else:
                have, fix = a.dtype, ".astype(np.%s)" % want.name
            raise self._error("%s has dtype %s, @%s wants %s (%s): convert it, e.g. with %s" % (
                what, have, self.name, want, p.elem, fix), argument=arg)
        if a.ndim != p.rank:
            raise self._error("%s has %d dimension%s %s, @%s wants %d (%s)" % (
                what, a.ndim, "" if a.ndim == 1 else "s", a.shape, self.name, p.rank, p.domain()), argument=arg)
        if is_out and (a.readonly if isinstance(a, _device.DeviceArray) else not a.flags.writeable):
            raise self._error("%s is read-only" % what)
        return a, origin

    def _infer(self, inputs, outs, syms):
        """Solves the size symbols (and unknown extents) from the shapes.
        Returns (env, sources): sources says, per value, where it came from
        ("from 'u' dimension K", "given as N=24"), for the messages of a
        size mismatch (_sourced)."""
        env = dict(syms)
        sources = {s: "given as %s=%d" % (s, v) for s, v in syms.items()}
        skipped = []
        pending = []
        for group in (inputs, outs):
            eqs = []
            for p, a, origin in group:
                for d, dim in enumerate(p.dims):
                    n = a.shape[d]
                    if origin is None:
                        eqs.append(("eq", dim.size, n, _source(p, dim, False)))
                    else:
                        eqs.append(("field", dim, -origin[d], n - origin[d], p))
            pending.extend(eqs)
            progress = True
            while progress:
                progress = False
                rest = []
                for eq in pending:
                    if eq[0] == "field":
                        _, dim, lo, hi, p = eq
                        free = [v for v in dim.lo.vars() if v not in env]
                        if not free:
                            if dim.lo.eval(env) == lo:
                                rest.append(("eq", dim.hi, hi, _source(p, dim, True)))
                                progress = True
                            else:
                                skipped.append((p, dim, lo, hi))
                            continue
                        if len(free) == 1:
                            x = dim.lo.solve(free[0], lo, env)
                            if x is not None:
                                env[free[0]] = x
                                sources[free[0]] = _source(p, dim, True)
                                rest.append(("eq", dim.hi, hi, _source(p, dim, True)))
                                progress = True
                                continue
                        rest.append(eq)
                        continue
                    _, expr, n, src = eq
                    free = [v for v in expr.vars() if v not in env]
                    if not free:
                        continue
                    if len(free) == 1:
                        x = expr.solve(free[0], n, env)
                        if x is not None:
                            env[free[0]] = x
                            sources[free[0]] = src
                            progress = True
                            continue
                    rest.append(eq)
                pending = rest
        missing = [s for s in self.signature.symbols if s not in env]
        if missing:
            names = [self.signature.symbol_names[self.signature.symbols.index(s)] for s in missing]
            msg = "size symbol%s %s cannot be inferred from the arguments' shapes: pass %s" % (
                "s" if len(names) > 1 else "", ", ".join(names), ", ".join("%s=..." % n for n in names))
            for p, dim, lo, hi in skipped:
                msg += ("\n  (%s is a Field covering %s[%d:%d], whose lower bound is not the argument's %r,"
                        " so it does not determine the sizes)" % (p.what(), dim.name, lo, hi, dim))
            raise self._error(msg)
        return env, sources

    def _place(self, p, a, origin, env, is_out):
        """The view of a Field holding exactly the parameter's points."""
        if origin is None:
            return a
        what = p.what() if not is_out else "%s (out=)" % p.what()
        index = []
        for d, dim in enumerate(p.dims):
            try:
                lo, hi = dim.lo.eval(env), dim.hi.eval(env)
            except KeyError as e:
                raise self._error("%s dimension %s: the interval %r depends on %s, which nothing determines"
                                  % (what, dim.name, dim, e.args[0]), argument=p.name, dimension=dim.name)
            hi = max(hi, lo)
            start, stop = lo + origin[d], hi + origin[d]
            if start < 0 or stop > a.shape[d]:
                raise self._error("%s dimension %s: needs the points [%d:%d] (%r), the Field covers [%d:%d]" % (
                    what, dim.name, lo, hi, dim, -origin[d], a.shape[d] - origin[d]),
                    argument=p.name, dimension=dim.name)
            index.append(slice(start, stop))
        return a[tuple(index)]

    def _prepare(self, args, kwargs, out):
        sig = self.signature
        values, syms = self._bind(args, kwargs)
        inputs = []
        for p, v in zip(sig.inputs, values):
            a, origin = self._array(p, v, False)
            inputs.append((p, a, origin))
        outs_given = self._outs(out)
        outs = []
        for p, v in zip(sig.results, outs_given):
            if v is not None:
                a, origin = self._array(p, v, True)
                outs.append((p, a, origin))
        env, sources = self._infer(inputs, outs, syms)
        if self.module.target == "nvptx64":
            return self._prepare_device(inputs, outs, env, outs_given, sources)
        arrays = []
        for p, a, origin in inputs:
            view = self._place(p, a, origin, env, False)
            problem = _layout_problem(view)
            if problem:
                policy = self.module.copy
                msg = "@%s: %s %s: %s" % (self.name, p.what(), view.shape, problem)
                if policy == "never":
                    raise ArgumentError(msg + "; pass a C-contiguous array (np.ascontiguousarray)", argument=p.name)
                if policy == "warn":
                    warnings.warn(CopyWarning(msg + "; passing a C-contiguous copy (np.ascontiguousarray avoids it,"
                                              " copy='silent' hides this warning)"), stacklevel=3)
                view = np.array(view, order="C", copy=True)  # ascontiguousarray makes 0-d arrays 1-d
            arrays.append(view)
        out_views = [None] * len(sig.results)
        for p, a, origin in outs:
            view = self._place(p, a, origin, env, True)
            problem = _layout_problem(view)
            if problem:
                raise self._error("%s (out=) %s: %s; the results are written in place, so pass an array"
                                  " whose last dimension is contiguous" % (p.what(), view.shape, problem))
            for q, x in zip(sig.inputs, arrays):
                if x.size and view.size and np.may_share_memory(view, x):
                    raise self._error("%s (out=) overlaps argument '%s': results must not overlap inputs"
                                      % (p.what(), q.name))
            out_views[p.index] = view
        return arrays, env, out_views, outs_given, sources

    def _prepare_device(self, inputs, outs, env, outs_given, sources):
        """_prepare's second half for nvptx64: DeviceArray views, no copy
        (a layout the ABI cannot describe is an error), scalars copied to
        the device of the other arrays."""
        sig = self.signature
        arrays = []
        for p, a, origin in inputs:
            view = self._place(p, a, origin, env, False)
            if isinstance(view, _device.DeviceArray):
                problem = _device.layout_problem(view)
                if problem:
                    raise self._error("%s %s: %s; pass a C-contiguous array (its package's ascontiguousarray, or"
                                      " .contiguous() for a tensor)" % (p.what(), view.shape, problem),
                                      argument=p.name)
            arrays.append(view)
        out_views = [None] * len(sig.results)
        for p, a, origin in outs:
            view = self._place(p, a, origin, env, True)
            problem = _device.layout_problem(view)
            if problem:
                raise self._error("%s (out=) %s: %s; the results are written in place, so pass an array"
                                  " whose last dimension is contiguous" % (p.what(), view.shape, problem))
            for q, x in zip(sig.inputs, arrays):
                if isinstance(x, _device.DeviceArray) and _device.overlap(view, x):
                    raise self._error("%s (out=) overlaps argument '%s': results must not overlap inputs"
                                      % (p.what(), q.name))
            out_views[p.index] = view
        return arrays, env, out_views, outs_given, sources

    def _like_device(self, like, arrays, out_views):
        """The array whose package and device allocate results and hold
        uploaded scalars: like= when given, else the first argument or
        out= array in GPU memory."""
        if like is not None:
            if not _device.is_device_array(like):
                raise self._error("like= must be an array in GPU memory for a module compiled for nvptx64, got %s"
                                  % type(like).__name__)
            return like
        for x in arrays + out_views:
            if isinstance(x, _device.DeviceArray):
                return x.obj
        raise self._error("no argument is in GPU memory to allocate the results like: pass like= (a CuPy"
                          " array or a CUDA tensor) or out=")

    def _outs(self, out):
        n = len(self.signature.results)
        if out is None:
            return [None] * n
        if isinstance(out, (tuple, list)):
            if len(out) != n:
                raise self._error("out= has %d entries for %d result%s" % (len(out), n, "" if n == 1 else "s"))
            return list(out)
        if n != 1:
            raise self._error("has %d results: out= must be a tuple of %d (None for those to allocate)" % (n, n))
        return [out]

    # -- running ---------------------------------------------------------

    def __call__(self, *args, out=None, backend=None, like=None, **kwargs):
        backend = backend or self.module.backend
        if backend not in _BACKENDS:
            raise ValueError("backend must be one of %s, got %r" % (_BACKENDS, backend))
        gpu = self.module.target == "nvptx64"
        conv = None if gpu else _converter(like, "@%s" % self.name)
        arrays, env, out_views, outs_given, sources = self._prepare(args, kwargs, out)
        if gpu:
            return self._call_device(backend, like, arrays, env, out_views, outs_given, sources)
        try:
            if backend == "interp":
                results = self._run_interp(arrays, env)
                for i, (r, v) in enumerate(zip(results, out_views)):
                    if v is not None:
                        if v.shape != r.shape:
                            p = self.signature.results[i]
                            raise self._error("%s (out=) has shape %s, the interpreter computed %s on %s" % (
                                p.what(), v.shape, r.shape, p.domain()))
                        v[...] = r
            else:
                results = self._run_compiled(arrays, env, out_views)
        except ArgumentError as e:
            sourced = _sourced(e, sources)
            if sourced is e:
                raise
            raise sourced from None
        final = [results[i] if g is None else g for i, g in enumerate(outs_given)]
        if conv is not None:
            # The results allocated here; out= ones are returned as given.
            final = [conv(r, p.elem) if g is None else r
                     for r, g, p in zip(final, outs_given, self.signature.results)]
        return final[0] if len(final) == 1 else tuple(final)

    def _call_device(self, backend, like, arrays, env, out_views, outs_given, sources):
        """A call of a module compiled for nvptx64: the arrays stay on the
        device and the results are arrays of the same kind (CuPy for CuPy
        arguments, CUDA tensors for tensors). The interpreter backend copies
        the arguments to the host and its results back."""
        dev = self._like_device(like, arrays, out_views)
        try:
            if backend == "interp":
                host = [x if isinstance(x, np.ndarray) else _device.to_host(x.obj) for x in arrays]
                results = self._run_interp(host, env)
                final = []
                for i, (r, v) in enumerate(zip(results, out_views)):
                    if v is None:
                        final.append(_device.from_host(r, dev))
                        continue
                    if v.shape != r.shape:
                        p = self.signature.results[i]
                        raise self._error("%s (out=) has shape %s, the interpreter computed %s on %s" % (
                            p.what(), v.shape, r.shape, p.domain()))
                    _device.assign(v.obj, r)
                    final.append(v.obj)
            else:
                arrays = [_device.DeviceArray(_device.from_host(x, dev), "a scalar") if isinstance(x, np.ndarray)
                          else x for x in arrays]
                final = [r.obj for r in self._run_compiled(arrays, env, out_views, dev)]
        except ArgumentError as e:
            sourced = _sourced(e, sources)
            if sourced is e:
                raise
            raise sourced from None
        final = [final[i] if g is None else g for i, g in enumerate(outs_given)]
        return final[0] if len(final) == 1 else tuple(final)

    # -- derivatives (docs/derivatives.md) ----------------------------------

    def derivative(self, kind):
        """The Function @f_jvp (kind "jvp") or @f_vjp ("vjp") of this @f,
        from the module compiled with tc-opt --derivatives (compiled on
        first use unless the module was: Module.with_derivatives)."""
        if kind not in ("jvp", "vjp"):
            raise ValueError("kind must be 'jvp' or 'vjp', got %r" % (kind,))
        mod = self.module.with_derivatives()
        fn = mod.functions.get("%s_%s" % (self.name, kind))
        if fn is None:
            raise TirError("@%s has no @%s_%s: tc-opt --derivatives differentiates the functions with a float"
                           " argument and a float result, and not the derivative functions again"
                           % (self.name, self.name, kind))
        return fn

    def jvp(self, *args, out=None, backend=None, like=None, **named):
        """Forward mode: @f_jvp(x1..xn, dx1..dxk), the arguments and then a
        tangent for each float argument (same type), by position or by
        name (the tangent of 'u' is 'du'). Returns @f_jvp's results in the
        order of docs/derivatives.md: @f's results, then the tangent J·dx
        of each float result, as a tuple (out=, backend= and like= as for
        a call of @f)."""
        return self.derivative("jvp")(*args, out=out, backend=backend, like=like, **named)

    def vjp(self, *args, out=None, backend=None, like=None, **named):
        """Reverse mode: @f_vjp(x1..xn, dr1..drm), the arguments and then a
        cotangent for each float result (same type). Returns Jᵀ·dr, one
        cotangent for each float argument, in argument order (one array
        when there is one, else a tuple)."""
        return self.derivative("vjp")(*args, out=out, backend=backend, like=like, **named)

    def result_shapes(self, **symbols):
        """The shapes of the results for these size symbols (f_result_shape)."""
        env = {}
        for k, v in symbols.items():
            what = self._names.get(k)
            if what is None or what[0] != "sym":
                raise self._error("no size symbol '%s'" % k)
            env[what[1]] = int(v)
        return self._shapes(env, self.module.backend == "compiled")

    def _shapes(self, env, use_abi, arrays=None):
        """The results' shapes from f_result_shape, or, given the inputs
        and where the function has extents computed from data, from
        f_result_shape_data."""
        sig = self.signature
        total = sum(p.rank for p in sig.results)
        flat = None
        if use_abi:
            fn = self._lib()
            missing = [s for s in sig.symbols if s not in env]
            if missing:
                raise self._error("missing size symbols: %s" % ", ".join(missing))
            sizes = (ctypes.c_int64 * max(total, 1))()
            if arrays is not None and fn.result_shape_data is not None:
                rc = fn.result_shape_data(*(_abi_args(arrays) + [env[s] for s in sig.symbols] + [sizes]))
                if rc != 0:
                    self._raise_call_error(fn, rc)
            else:
                fn.result_shape(*([env[s] for s in sig.symbols] + [sizes]))
            flat = list(sizes)[:total]
        shapes, k = [], 0
        for p in sig.results:
            shape = []
            for dim in p.dims:
                n = flat[k] if flat is not None else -1
                if n < 0:
                    # f_result_shape writes -1 for a size that depends on an
                    # unknown extent: its size expression gives it.
                    try:
                        n = max(dim.size.eval(env), 0)
                    except KeyError as e:
                        hint = ""
                        if use_abi and self._lib().result_shape_data is not None:
                            hint = " (it is computed from the data when the function is called)"
                        raise self._error("%s dimension %s: its size %s depends on %s, which nothing determines%s"
                                          % (p.what(), dim.name, dim.size, e.args[0], hint))
                shape.append(n)
                k += 1
            shapes.append(tuple(shape))
        return shapes

    def _lib(self):
        if self._lib_fn is None:
            self._lib_fn = _LibFunction(self.module._load(), self.signature)
        return self._lib_fn

    def _run_compiled(self, arrays, env, out_views, device_like=None):
        sig = self.signature
        fn = self._lib()
        shapes = None
        results = []
        for p, v in zip(sig.results, out_views):
            if v is None:
                if shapes is None:
                    shapes = self._shapes(env, True, arrays)
                if device_like is not None:
                    v = _device.DeviceArray(_device.empty(device_like, shapes[p.index], p.dtype), "a result")
                else:
                    v = np.empty(shapes[p.index], dtype=p.dtype)
            results.append(v)
        params = _abi_args(arrays + results)
        params.extend(env[s] for s in sig.symbols)
        rc = fn.call(params)
        if rc != 0:
            self._raise_call_error(fn, rc)
        return results

    def _raise_call_error(self, fn, rc):
        """Raises what f_error says of a failed call: an ArgumentError when
        it names an argument, else a RunError."""
        sig = self.signature
        msg = fn.error(rc)
        if "argument '" not in msg:
            raise RunError("@%s: %s" % (self.name, msg))
        e = ArgumentError("@%s: %s" % (self.name, msg))
        for p in sig.results:
            # The ABI calls a result descriptor an argument too.
            if e.argument == p.cname and all(q.name != p.cname for q in sig.inputs):
                e = ArgumentError("@%s: %s (the out= array of %s)" % (self.name, msg, p.what()),
                                  argument=e.argument, dimension=e.dimension)
        raise e

    def _run_interp(self, arrays, env):
        sig = self.signature
        tc_run = _build.find_tool("tc-run")
        src = self.module._source_file()
        with tempfile.TemporaryDirectory(prefix="tir-interp-") as tmp:
            cmd = [tc_run, src, "--entry", self.name, "--interp"]
            if self.module.derivatives:
                cmd.insert(2, "--derivatives")  # @f_jvp and @f_vjp exist only then
            for p, a in zip(sig.inputs, arrays):
                path = os.path.join(tmp, "arg%d.npy" % p.index)
                # np.save writes an F-contiguous array in Fortran order,
                # which tc-run does not read.
                if p.elem == "bf16":
                    a = _bf16_to_f32(a)  # tc-run exchanges bf16 as float32
                np.save(path, a if a.flags.c_contiguous else np.array(a, order="C"))
                cmd += ["--arg", "%s=%s" % (p.name, path)]
            for s, tn in zip(sig.symbols, sig.symbol_names):
                cmd += ["--arg", "%s=%d" % (tn, env[s])]
            outs = [os.path.join(tmp, "result%d.npy" % i) for i in range(len(sig.results))]
            for o in outs:
                cmd += ["--out", o]
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if p.returncode != 0:
                err = p.stderr.decode(errors="replace").strip().replace(src, self.module.name)
                lines = [l for l in err.splitlines() if l.strip()]
                msg = lines[-1] if lines else "exit %d" % p.returncode
                for prefix in ("tc-run: error: ", "tc-run: "):
                    if msg.startswith(prefix):
                        msg = msg[len(prefix):]
                cls = ArgumentError if "argument '" in msg else RunError
                if cls is RunError and len(lines) > 1:
                    msg = err
                raise cls("@%s (interpreter): %s" % (self.name, msg))
            results = []
            for rp, o in zip(sig.results, outs):
                r = np.load(o)
                if rp.elem == "bf16":
                    r = _f32_to_bf16(r)
                elif r.dtype != np.dtype(rp.dtype):
                    r = r.astype(rp.dtype)
                results.append(r)
        return results


_FLOATS = ("f16", "bf16", "f32", "f64")


def _one(p):
    """The 0-d 1 of a parameter's element type (bf16 as its bits)."""
    if p.elem == "bf16":
        return np.array(0x3F80, dtype=np.uint16)
    return np.array(1, dtype=p.dtype)


def grad(f):
    """The gradient of f, a tir.Function with one 0-d float result: a
    function taking f's arguments (by position or name, size symbols by
    name; backend=, like= and out= as for f) and returning the gradient
    with respect to every float argument, in argument order: one array
    when there is one, else a tuple. It calls @f_vjp with the cotangent 1
    (compiled with tc-opt --derivatives on first use)."""
    if not isinstance(f, Function):
        raise TypeError("tir.grad takes a tir.Function (mod.f), got %s" % type(f).__name__)
    sig = f.signature
    if len(sig.results) != 1 or sig.results[0].rank != 0 or sig.results[0].elem not in _FLOATS:
        raise ValueError("tir.grad(@%s): the function must have one 0-d float result, it returns %s" % (
            f.name, ", ".join("%s %s" % (p.elem, p.domain()) for p in sig.results) or "nothing"))
    if not any(p.elem in _FLOATS for p in sig.inputs):
        raise ValueError("tir.grad(@%s): no argument is a float tensor, there is nothing to differentiate"
                         % f.name)

    def gradient(*args, out=None, backend=None, like=None, **named):
        values, syms = f._bind(args, named)
        vjp = f.derivative("vjp")
        cot = vjp.signature.inputs[len(sig.inputs)]
        return vjp(*(values + [_one(cot)]), out=out, backend=backend, like=like, **syms)

    gradient.__name__ = "grad_" + f.name
    gradient.__qualname__ = gradient.__name__
    gradient.__doc__ = "The gradient of @%s with respect to %s (tir.grad)." % (
        f.name, ", ".join("'%s'" % p.name for p in sig.inputs if p.elem in _FLOATS))
    gradient.function = f
    return gradient


def _source(p, dim, field):
    """Where a size inferred from parameter p's dimension dim came from."""
    if p.is_input:
        return "from %s'%s' dimension %s" % ("the Field of " if field else "", p.name, dim.name)
    return "from the out= %sof result #%d dimension %s" % ("Field " if field else "array ", p.index, dim.name)


# A size mismatch as f_error and the interpreter word it: `argument 'v'
# dimension L: expected extent L = 9, got 8`.
_MISMATCH = re.compile(r"(expected extent (.+?) = -?\d+)(, got -?\d+)")
_IDENT = re.compile(r"\??[A-Za-z_][A-Za-z0-9_]*")


def _sourced(e, sources):
    """The ArgumentError e, with where the expected extent's size symbols
    came from after their values (`expected extent L = 9 (from 'u'
    dimension K), got 8`); e itself when it is no size mismatch or names
    no symbol the call inferred or was given."""
    msg = str(e)
    m = _MISMATCH.search(msg)
    if not m:
        return e
    expr = m.group(2)
    names = []
    for n in _IDENT.findall(expr):
        if n in sources and n not in names:
            names.append(n)
    if not names:
        return e
    if len(names) == 1 and expr.strip() == names[0]:
        note = sources[names[0]]
    else:
        note = ", ".join("%s %s" % (n, sources[n]) for n in names)
    msg = msg[:m.end(1)] + " (%s)" % note + msg[m.start(3):]
    return ArgumentError(msg, argument=e.argument, dimension=e.dimension)


def _abi_args(arrays):
    """The C arguments for arrays: a descriptor pointer, or for a 0-d
    array its data pointer (docs/abi.md)."""
    return [_data_pointer(a) if a.ndim == 0 else ctypes.byref(_descriptor(a)) for a in arrays]


class _LibFunction:
    """The three C functions of one exported function, with their ctypes
    signatures."""

    _lock = threading.Lock()

    def __init__(self, lib, sig):
        tensor = [ctypes.c_void_p if p.rank == 0 else ctypes.POINTER(_desc_class(p.rank))
                  for p in sig.inputs + sig.results]
        self.fn = getattr(lib, sig.symbol)
        self.fn.argtypes = tensor + [ctypes.c_int64] * len(sig.symbols)
        self.fn.restype = ctypes.c_int32
        self.err = getattr(lib, sig.error_function)
        self.err.argtypes = [ctypes.c_int32]
        self.err.restype = ctypes.c_char_p
        self.result_shape = getattr(lib, sig.result_shape_function)
        self.result_shape.argtypes = [ctypes.c_int64] * len(sig.symbols) + [ctypes.POINTER(ctypes.c_int64)]
        self.result_shape.restype = ctypes.c_int32
        # Only functions with a result extent computed from data
        # (tir.compress, tir.iota) export f_result_shape_data.
        self.result_shape_data = None
        if sig.result_shape_data_function is not None:
            self.result_shape_data = getattr(lib, sig.result_shape_data_function)
            self.result_shape_data.argtypes = tensor[:len(sig.inputs)] + [ctypes.c_int64] * len(sig.symbols) + [
                ctypes.POINTER(ctypes.c_int64)]
            self.result_shape_data.restype = ctypes.c_int32

    def call(self, params):
        return self.fn(*params)

    def error(self, code):
        # The message buffer is shared by the module's functions: read it
        # under a lock (two failing threads at once could still interleave
        # between the call and this read).
        with self._lock:
            m = self.err(code)
        return m.decode(errors="replace") if m else "error code %d" % code
