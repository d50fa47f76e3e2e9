"""tir: call TIR kernels on NumPy arrays (and PyTorch tensors, through DLPack).

    import numpy as np, tir
    lap = tir.compile("laplacian.tir").laplacian     # tc-opt -O2 | llc | cc -shared, cached
    u = np.random.rand(66, 66)                         # a 64 x 64 interior and a halo of 1
    out = lap(tir.Field(u, origin=1))                  # the interior maps to I[0:64]
    ref = lap(tir.Field(u, origin=1), backend="interp")  # the reference interpreter (tc-run)

Pure Python on ctypes and NumPy; the tools are the repository's bin/tc-opt
and bin/tc-run, llc (LLVM 14) and gcc, overridable with $TIR_TC_OPT,
$TIR_TC_RUN, $TIR_LLC and $TIR_CC. See docs/python.md.
"""

import ctypes
import os
import sys
import warnings

try:
    import numpy  # noqa: F401
except ImportError:
    raise ImportError("the tir package needs NumPy: `make deps` installs Debian's python3-numpy for "
                      "/usr/bin/python3 (this is %s)" % __import__("sys").executable) from None

from ._build import Entry, default_cache_dir, default_wait_policy, find_tool, host_target
from ._errors import ArgumentError, CompileError, CompileWarning, CopyWarning, RunError, TirError
from ._function import Field, Function, grad
from ._signature import parse_abi_json

__all__ = ["compile", "compile_source", "grad", "Module", "Function", "Field", "TirError", "CompileError",
           "ArgumentError", "RunError", "CopyWarning", "CompileWarning", "default_cache_dir", "find_tool"]

_COPY = ("warn", "silent", "never")
_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def _user_stacklevel():
    """warnings.warn's stacklevel, for its caller, of the first frame
    outside this package: the user's line that compiled or called."""
    f = sys._getframe(1)
    level = 1
    while f is not None and os.path.dirname(os.path.abspath(f.f_code.co_filename)) == _PACKAGE:
        f = f.f_back
        level += 1
    return level


class Module:
    """A compiled module: one Function per exported tir.func, as attributes
    (`mod.laplacian`), by name (`mod["laplacian"]`) or in `mod.functions`.

    `cache_hit` is True when neither the front end nor the native build ran
    a tool; `tools_run` lists the commands that did run. tc-opt's warnings
    are raised as CompileWarnings, from a cached build as from a fresh one,
    and kept in `compile_warnings`.

    The build options are attributes (`opt_level`, `target`, `mcpu`,
    `fp_contract`, `fp_reassociate`, `threads`); once built, `cpu` and
    `cpu_features` say what the code is for (`mcpu="native"` resolved to
    this machine, "" for generic code) and `wait_policy` the libgomp
    setting a threads=True build loaded with (None without threads).

    `derivatives` is True for a module compiled with tc-opt --derivatives
    (`tir.compile(..., derivatives=True)`): its functions include every
    @f_jvp and @f_vjp. Otherwise `f.jvp` and `f.vjp` compile that module
    on first use (`with_derivatives()`), with the same options and cache."""

    def __init__(self, entry, abi, backend, copy, opt_level, target, llc_flags, cflags,
                 mcpu=None, fp_contract="off", fp_reassociate=False, threads=False):
        self._entry = entry
        self.derivatives = entry.derivatives
        self._with_derivatives = None
        self.name = entry.name
        self.backend = backend
        self.copy = copy
        self.opt_level = opt_level
        self.target = target
        self.mcpu = mcpu
        self.fp_contract = fp_contract
        self.fp_reassociate = fp_reassociate
        self.threads = threads
        self.cpu = None
        self.cpu_features = None
        self.wait_policy = None
        self._openmp = False
        self._llc_flags = tuple(llc_flags)
        self._cflags = tuple(cflags)
        self.abi = abi
        self._lib = None
        self.so_path = None
        self.compile_warnings = []
        self._warned = set()
        sigs = parse_abi_json(abi)
        self.functions = {s.name: Function(self, s) for s in sigs}

    @property
    def cache_dir(self):
        """The cache entry: the source, its ABI (module.abi.json), the shared objects."""
        return self._entry.dir

    @property
    def tools_run(self):
        return list(self._entry.tools_run)

    @property
    def cache_hit(self):
        return not self._entry.tools_run

    def build_options(self):
        """The options the shared object is built with, as its cache key
        holds them."""
        if self.target is None:
            self.target = host_target()
            if self.mcpu is None:
                self.mcpu = "native"
        return {"opt": self.opt_level, "target": self.target, "mcpu": self.mcpu, "fp_contract": self.fp_contract,
                "fp_reassociate": self.fp_reassociate, "threads": self.threads,
                "llc_flags": list(self._llc_flags), "cflags": list(self._cflags)}

    def build(self):
        """Builds (or finds in the cache) the shared object; returns its path."""
        if self.so_path is None:
            self.so_path, meta = self._entry.shared_object(self.build_options())
            self.cpu, self.cpu_features, self._openmp = meta["cpu"], meta["features"], meta["openmp"]
            self._warn(meta.get("warnings", []))
        return self.so_path

    def _load(self):
        if self._lib is None:
            so = self.build()
            if self._openmp:
                self.wait_policy = default_wait_policy()
            try:
                self._lib = ctypes.CDLL(so)
                return self._lib
            except OSError as e:
                err = e
            if so not in self._entry.built:
                # A cached object that passed the checks and still does
                # not load (damaged inside): build it again, once.
                self._entry.discard(so)
                self.so_path = None
                so = self.build()
                try:
                    self._lib = ctypes.CDLL(so)
                    return self._lib
                except OSError as e:
                    err = e
            raise CompileError("%s: the shared object built from it does not load (%s): %s" % (self.name, so, err))
        return self._lib

    def _warn(self, ws):
        """Raises each stored tc-opt warning once per module (the -O build
        repeats the front end's), at the caller's line outside tir."""
        for w in ws:
            key = (w.get("file"), w.get("line"), w.get("col"), w["message"])
            if key in self._warned:
                continue
            self._warned.add(key)
            cw = self._entry.warning(w)
            self.compile_warnings.append(cw)
            warnings.warn(cw, stacklevel=_user_stacklevel())

    def with_derivatives(self):
        """This module compiled with tc-opt --derivatives (itself when it
        was): the same source, options and cache, with @f_jvp and @f_vjp
        next to every @f. Compiled (or found in the cache) once, on first
        use; a function tc-opt cannot differentiate is a CompileError."""
        if self.derivatives:
            return self
        if self._with_derivatives is None:
            e = self._entry
            self._with_derivatives = _compile(
                e.source, e.suffix, e.name, self.backend, self.opt_level, e.cache_root, self.copy, self.target,
                self._llc_flags, self._cflags, self.mcpu, self.fp_contract, self.fp_reassociate, self.threads,
                derivatives=True, parent=self)
        return self._with_derivatives

    def _source_file(self):
        if not os.path.exists(self._entry.source_path):
            self._entry.front_end()
        return self._entry.source_path

    def __getattr__(self, name):
        fns = self.__dict__.get("functions", {})
        if name in fns:
            return fns[name]
        raise AttributeError("%s defines no function '%s' (it defines %s)" % (
            self.__dict__.get("name", "the module"), name, ", ".join(fns) or "none"))

    def __getitem__(self, name):
        try:
            return self.functions[name]
        except KeyError:
            raise KeyError("%s defines no function '%s' (it defines %s)" % (self.name, name, ", ".join(self.functions)))

    def __iter__(self):
        return iter(self.functions.values())

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.functions))

    def __repr__(self):
        return "<tir.Module %s: %s>" % (self.name, ", ".join("@" + n for n in self.functions))


def compile(path, *, backend="compiled", opt_level=2, cache_dir=None, copy="warn",
            target=None, mcpu=None, fp_contract="off", fp_reassociate=False, threads=False,
            llc_flags=("-O3",), cflags=(), derivatives=False):
    """Compiles a .tir or .tc file into a Module.

    backend: "compiled" (the default: builds the shared object now) or
      "interp" (calls run the reference interpreter through tc-run; the
      shared object is built only if a call asks for backend="compiled").
    opt_level: tc-opt's -O level (0..3).
    cache_dir: where shared objects are kept (default: $TIR_CACHE_DIR, else
      $XDG_CACHE_HOME/tir, else ~/.cache/tir). Entries are keyed by the
      source text, the options, the tools' identities (path and SHA-256)
      and, for mcpu="native", this machine's CPU features.
    copy: what to do with an input the ABI cannot describe (last dimension
      not contiguous, negative strides): "warn" (copy with a CopyWarning),
      "silent" (copy) or "never" (raise ArgumentError).
    target: tc-opt's --target (x86_64 or aarch64; default: this machine's),
      or "nvptx64": CUDA kernels and their host wrapper (docs/gpu.md),
      called on arrays in GPU memory (CuPy arrays, PyTorch CUDA tensors,
      anything with __cuda_array_interface__ or DLPack on CUDA), results
      allocated like them; mcpu is then the GPU architecture of the PTX
      (default sm_80, which later GPUs run through the driver's JIT).
    mcpu: tc-opt's --mcpu: "native" (this machine's CPU; the default when
      target is this machine's), "generic" (portable code) or an LLVM
      processor name ("x86-64-v3", "skylake-avx512", "znver3", ...).
    fp_contract: "off" (results bitwise the interpreter's) or "fast"
      (fused multiply-adds), tc-opt's --fp-contract.
    fp_reassociate: let float sums and products be reordered (vectorized
      reductions), tc-opt's --fp-reassociate.
    threads: run the outermost parallel loops on all cores through
      libgomp (tc-opt's --threads; OMP_NUM_THREADS sets how many, and
      OMP_WAIT_POLICY is set to passive unless the environment chooses).
    llc_flags, cflags: flags for llc (default -O3) and for `cc -shared`.
    derivatives: compile with tc-opt --derivatives now, so that the module
      also has every @f_jvp and @f_vjp (docs/derivatives.md); without it,
      f.jvp, f.vjp and tir.grad(f) compile them on first use.
    """
    with open(path) as f:
        source = f.read()
    suffix = os.path.splitext(path)[1] or ".tir"
    return _compile(source, suffix, path, backend, opt_level, cache_dir, copy, target, llc_flags, cflags,
                    mcpu, fp_contract, fp_reassociate, threads, derivatives)


def compile_source(source, *, suffix=".tir", name=None, backend="compiled", opt_level=2, cache_dir=None,
                   copy="warn", target=None, mcpu=None, fp_contract="off", fp_reassociate=False, threads=False,
                   llc_flags=("-O3",), cflags=(), derivatives=False):
    """compile() for source text: suffix ".tir" or ".tc" says its language."""
    return _compile(source, suffix, name or "<source>" + suffix, backend, opt_level, cache_dir, copy,
                    target, llc_flags, cflags, mcpu, fp_contract, fp_reassociate, threads, derivatives)


def _host_or_none():
    try:
        return host_target()
    except CompileError:
        return None


def _compile(source, suffix, name, backend, opt_level, cache_dir, copy, target, llc_flags, cflags,
             mcpu, fp_contract, fp_reassociate, threads, derivatives=False, parent=None):
    if backend not in ("compiled", "interp"):
        raise ValueError("backend must be 'compiled' or 'interp', got %r" % (backend,))
    if copy not in _COPY:
        raise ValueError("copy must be one of %s, got %r" % (_COPY, copy))
    if opt_level not in (0, 1, 2, 3):
        raise ValueError("opt_level must be 0, 1, 2 or 3, got %r" % (opt_level,))
    if suffix not in (".tir", ".tc", ".mlir"):
        raise ValueError("%s: expected a .tir or .tc file" % name)
    if fp_contract not in ("off", "fast"):
        raise ValueError("fp_contract must be 'off' or 'fast', got %r" % (fp_contract,))
    for flag, v in (("fp_reassociate", fp_reassociate), ("threads", threads), ("derivatives", derivatives)):
        if not isinstance(v, bool):
            raise ValueError("%s must be True or False, got %r" % (flag, v))
    if mcpu is not None and (not isinstance(mcpu, str) or not mcpu.strip() or mcpu.startswith("-")):
        raise ValueError("mcpu must be 'native', 'generic' or an LLVM processor name, got %r" % (mcpu,))
    if target is None:
        target = host_target() if backend == "compiled" else None
    elif target not in ("x86_64", "aarch64", "nvptx64"):
        raise ValueError("target must be 'x86_64', 'aarch64' or 'nvptx64', got %r" % (target,))
    if target == "nvptx64":
        if threads:
            raise ValueError("threads=True is for CPU targets: a GPU build runs its loops as kernels")
        if mcpu is None:
            mcpu = "sm_80"  # runs on every later GPU through the driver's JIT (docs/gpu.md)
        elif not mcpu.startswith("sm_"):
            raise ValueError("mcpu for target='nvptx64' is a GPU architecture (sm_80, sm_86, ...), got %r" % (mcpu,))
    if mcpu is None and target is not None and target == _host_or_none():
        # The code runs where it is built: this machine's instructions.
        mcpu = "native"
    entry = Entry(source, suffix, name, cache_dir or default_cache_dir(), derivatives)
    abi, ws = entry.front_end()
    mod = Module(entry, abi, backend, copy, opt_level, target, llc_flags, cflags,
                 mcpu, fp_contract, fp_reassociate, threads)
    if parent is not None:
        # The module with derivatives of a module: the source's warnings
        # were raised already, once is enough.
        mod._warned = parent._warned
        mod.compile_warnings = parent.compile_warnings
    mod._warn(ws)
    if not mod.functions:
        raise CompileError("%s defines no function with a C interface" % name)
    if backend == "compiled":
        mod.build()
    return mod
