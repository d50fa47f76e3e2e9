"""Finding the tools and building cached shared objects.

A module is compiled in two cached steps, each done once:

- front end (tc-opt only): the ABI of the functions (`tc-opt
  --emit=abi-json`: the signatures, with the arguments' tir and C names)
  and tc-opt's warnings, keyed by the source text, its kind (.tir or .tc),
  tc-opt's identity and the abi_version this package reads;
- native code: `tc-opt -O<n> [--mcpu ...] [--fp-contract=fast]
  [--fp-reassociate] [--threads]`, `llc -filetype=obj
  -relocation-model=pic`, `cc -shared`, keyed by the front-end key, the
  options, and llc's and cc's identities. Code for `mcpu="native"` is
  also keyed by this machine's CPU features (host_cpu_key), so that a
  cache shared between machines never hands one the code of another.

A tool's identity is its resolved path and the SHA-256 of the executable:
a rebuilt tc-opt or an upgraded llc gives new keys, and a cache hit runs
no tool at all (not even `--version`).

An entry is trusted only when it checks out: each step writes a JSON file
last, holding the SHA-256 of what it wrote (and tc-opt's warnings), and a
shared object must also be an ELF shared object for the target. A
truncated, emptied or replaced file is rebuilt, not reported as an error
in the user's source, which it is not.
"""

import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import tempfile

from ._errors import CompileError, CompileWarning
from ._signature import ABI_VERSION, parse_abi_json

_HERE = os.path.dirname(os.path.abspath(__file__))
# The repository's bin/ when the package is imported from its checkout
# (python/tir next to go.mod); an installed copy (pip install ./python)
# finds the tools on PATH or through the variables.
_REPO = os.path.normpath(os.path.join(_HERE, "..", ".."))
REPO_BIN = os.path.join(_REPO, "bin") if os.path.isfile(os.path.join(_REPO, "go.mod")) else None

# Bumped when the layout of a cache entry changes (2: front.json, the
# shared objects' checksums and the stored warnings; 3: the build options
# and the CPU the code is for; 4: the front end is --emit=abi-json).
_FORMAT = "tir-python-4"

# e_machine of the ELF shared objects each target builds.
_ELF_MACHINE = {"x86_64": 62, "aarch64": 183}

# tool -> (environment variable, candidates in order)
_TOOLS = {
    "tc-opt": ("TIR_TC_OPT", ([os.path.join(REPO_BIN, "tc-opt")] if REPO_BIN else []) + ["tc-opt"]),
    "tc-run": ("TIR_TC_RUN", ([os.path.join(REPO_BIN, "tc-run")] if REPO_BIN else []) + ["tc-run"]),
    "llc": ("TIR_LLC", ["llc-14", "/usr/lib/llvm-14/bin/llc", "llc"]),
    "cc": ("TIR_CC", ["gcc", "cc"]),
}


def find_tool(name):
    """The path of a tool: $TIR_TC_OPT, $TIR_TC_RUN, $TIR_LLC or $TIR_CC when
    set, else the repository's bin/ (tc-opt, tc-run), else PATH."""
    var, candidates = _TOOLS[name]
    given = os.environ.get(var)
    if given:
        path = shutil.which(given)
        if path is None:
            raise CompileError("%s=%s: not an executable" % (var, given))
        return os.path.abspath(path)
    for c in candidates:
        path = shutil.which(c)
        if path is not None:
            return os.path.abspath(path)
    build = "run `make build`"
    if REPO_BIN is None:
        build = "build it with `make build` in the TIR repository, then put its bin/ on PATH or set $%s" % var
    hint = {"tc-opt": build, "tc-run": build,
            "llc": "install llvm-14 (`make deps`)", "cc": "install gcc (`make deps`)"}[name]
    raise CompileError("%s not found (looked at $%s, %s): %s" % (name, var, ", ".join(candidates), hint))


_identities = {}


def tool_identity(path):
    """realpath:sha256 of an executable, memoised on its size and mtime."""
    real = os.path.realpath(path)
    st = os.stat(real)
    memo = (real, st.st_size, st.st_mtime_ns, st.st_ino)
    if memo not in _identities:
        h = hashlib.sha256()
        with open(real, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        _identities[memo] = "%s:%s" % (real, h.hexdigest())
    return _identities[memo]


def host_target():
    """tc-opt's --target for this machine (x86_64 or aarch64)."""
    m = platform.machine().lower()
    if m in ("x86_64", "amd64"):
        return "x86_64"
    if m in ("aarch64", "arm64"):
        return "aarch64"
    raise CompileError("tc-opt compiles for x86_64 and aarch64; this machine is %s" % platform.machine())


def host_cpu_key():
    """What tc-opt's --mcpu=native resolves from on this machine: the CPU
    features of /proc/cpuinfo (the first `flags` line, `Features` on
    AArch64), as a digest. Two machines with the same features get the
    same code, any other difference another cache key. None when they
    cannot be read (tc-opt then refuses native itself)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                k, sep, v = line.partition(":")
                if sep and k.strip() in ("flags", "Features"):
                    return hashlib.sha256(" ".join(sorted(v.split())).encode()).hexdigest()[:32]
    except OSError:
        pass
    return None


# The default wait policy of libgomp for --threads code, as tc-run's.
_WAIT_VARS = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")


def default_wait_policy():
    """Before a shared object built with threads=True is loaded (and with
    it libgomp, which reads its settings once, when it is loaded): sets
    OMP_WAIT_POLICY=passive in this process's environment unless it or
    GOMP_SPINCOUNT is set. libgomp's default makes waiting threads spin,
    which on a machine whose cores are busy takes a core from the thread
    they wait for (docs/python.md). Returns the policy in effect for a
    libgomp loaded from now on."""
    chosen = ["%s=%s" % (k, os.environ[k]) for k in _WAIT_VARS if k in os.environ]
    if chosen:
        return " ".join(chosen)
    os.environ["OMP_WAIT_POLICY"] = "passive"
    return "OMP_WAIT_POLICY=passive"


def default_cache_dir():
    """$TIR_CACHE_DIR, else $XDG_CACHE_HOME/tir, else ~/.cache/tir."""
    d = os.environ.get("TIR_CACHE_DIR")
    if d:
        return d
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tir")


def _key(obj):
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()


def _write_atomic(path, data):
    """Writes bytes or text next to path, then renames: readers of the
    cache never see a partial file, concurrent builders both succeed."""
    d = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _sha256(data):
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def _read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def _run(cmd, stage, source_copy=None, source_name=None, usage=None):
    """Runs a tool; (stdout, stderr) as text, or CompileError when it fails.
    usage: a ValueError message for a usage error of tc-opt (exit 2: an
    option the caller gave, such as an unknown mcpu), else None."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        raise CompileError("%s: cannot run %s: %s" % (stage, cmd[0], e))
    if p.returncode != 0:
        err = p.stderr.decode(errors="replace").rstrip()
        if usage and p.returncode == 2:
            raise ValueError("%s: %s" % (usage, err))
        msg = "%s failed (exit %d): %s\n%s" % (stage, p.returncode, " ".join(cmd), err)
        if source_copy and source_name:
            msg = msg.replace(source_copy, source_name)
        raise CompileError(msg)
    return p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


# The CPU tc-opt wrote into the code (convert-to-llvm{cpu=...}).
_TARGET_CPU = re.compile(r'"target-cpu"="([^"]*)"')
_TARGET_FEATURES = re.compile(r'"target-features"="([^"]*)"')


def target_cpu(llvm_ir):
    """(CPU name, features) of LLVM IR from tc-opt --mcpu, ("", "") for
    generic code."""
    cpu = _TARGET_CPU.search(llvm_ir)
    feats = _TARGET_FEATURES.search(llvm_ir)
    return (cpu.group(1) if cpu else ""), (feats.group(1) if feats else "")


def tc_opt_flags(opts):
    """tc-opt's flags for the build options (BuildOptions.as_key)."""
    flags = ["-O%d" % opts["opt"], "--target=" + opts["target"]]
    if opts["mcpu"] and opts["target"] != "nvptx64":  # a GPU's architecture is llc's -mcpu
        flags.append("--mcpu=" + opts["mcpu"])
    if opts["fp_contract"] != "off":
        flags.append("--fp-contract=" + opts["fp_contract"])
    if opts["fp_reassociate"]:
        flags.append("--fp-reassociate")
    if opts["threads"]:
        flags.append("--threads")
    return flags


# A diagnostic's first line: `LOCATION: SEVERITY: MESSAGE`, LOCATION being
# `file:line:col` or a name; the source line and the caret follow, indented.
_DIAG = re.compile(r"^(?P<loc>\S.*?): (?P<sev>warning|note|error|remark): (?P<msg>.*)$")


def _split_loc(loc, source_copy):
    """(file, line, col) of a location; file is None for the source itself,
    so that a stored warning names whichever file the user compiles."""
    parts = loc.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        f, line, col = parts[0], int(parts[1]), int(parts[2])
    else:
        f, line, col = loc, None, None
    return (None if f == source_copy else f), line, col


def parse_warnings(stderr, source_copy):
    """The warnings in a tool's stderr, each with its notes, as JSON-able
    dicts: file (None: the source), line, col, message, excerpt (the source
    line and caret tc-opt prints), notes (the same fields)."""
    out = []
    owner = None  # the warning notes attach to
    cur = None    # the diagnostic the following lines belong to
    for text in stderr.splitlines():
        m = _DIAG.match(text)
        if not m:
            if cur is not None and text.strip():
                cur["excerpt"].append(text)
            continue
        f, line, col = _split_loc(m.group("loc"), source_copy)
        d = {"file": f, "line": line, "col": col, "message": m.group("msg"), "excerpt": []}
        sev = m.group("sev")
        if sev == "warning":
            d["notes"] = []
            out.append(d)
            owner = cur = d
        elif sev == "note" and owner is not None:
            owner["notes"].append(d)
            cur = d
        else:
            owner = cur = None  # an error's or a remark's lines and notes are not kept
    return out


def _valid_warnings(ws):
    return isinstance(ws, list) and all(isinstance(w, dict) and isinstance(w.get("message"), str)
                                        and isinstance(w.get("notes", []), list) for w in ws)


def _elf_shared_object(path, target):
    """Whether path starts like a 64-bit little-endian ELF shared object
    for target (a truncated build or a file of another kind does not)."""
    try:
        with open(path, "rb") as f:
            h = f.read(20)
    except OSError:
        return False
    return (len(h) == 20 and h[:4] == b"\x7fELF" and h[4] == 2 and h[5] == 1
            and int.from_bytes(h[16:18], "little") == 3
            and int.from_bytes(h[18:20], "little") == _ELF_MACHINE.get(target))


class Entry:
    """A cache entry: a directory holding the source, its ABI
    (module.abi.json) and the shared objects built from it."""

    def __init__(self, source, suffix, name, cache_dir, derivatives=False):
        self.source = source
        self.suffix = suffix
        self.name = name  # the user's file name, for messages
        self.cache_root = cache_dir
        # With derivatives, every tc-opt command starts with --derivatives
        # (@f_jvp and @f_vjp next to every @f): another ABI, other shared
        # objects, another key. Without, the key is what it always was.
        self.derivatives = derivatives
        self.tc_opt = find_tool("tc-opt")
        key = {"format": _FORMAT, "abi_version": ABI_VERSION,
               "source": hashlib.sha256(source.encode()).hexdigest(),
               "suffix": suffix, "tc-opt": tool_identity(self.tc_opt)}
        if derivatives:
            key["derivatives"] = True
        self.key = _key(key)
        stem = os.path.splitext(os.path.basename(name))[0] or "module"
        stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in stem)[:40]
        if derivatives:
            stem += "-derivatives"
        self.dir = os.path.join(os.path.abspath(cache_dir), "%s-%s" % (stem, self.key[:24]))
        self.source_path = os.path.join(self.dir, "source" + suffix)
        self.abi_path = os.path.join(self.dir, "module.abi.json")
        self.tools_run = []  # the commands this process ran for the entry
        self.built = set()   # the shared objects this process built

    def front_end(self):
        """(the ABI as JSON text, warnings), running tc-opt unless a valid
        entry is cached. The warnings are tc-opt's (parse_warnings), kept
        in front.json for cache hits."""
        cached = self._cached_front()
        if cached is not None:
            return cached
        os.makedirs(self.dir, exist_ok=True)
        _write_atomic(self.source_path, self.source)
        abi, err = self._tool([self.tc_opt] + self._derivatives_flag() + ["--emit=abi-json", self.source_path],
                              "tc-opt %s--emit=abi-json" % ("--derivatives " if self.derivatives else ""))
        try:
            parse_abi_json(abi)
        except ValueError as e:
            raise CompileError("%s (%s): %s; rebuild tc-opt (make build) or use the package of its tree"
                               % (self.tc_opt, self.name, e)) from None
        ws = parse_warnings(err, self.source_path)
        _write_atomic(self.abi_path, abi)
        # Written last: an entry without it, or whose files do not match
        # it, is rebuilt.
        _write_atomic(self.front_path, json.dumps({"abi_sha256": _sha256(abi), "abi_version": ABI_VERSION,
                                                   "warnings": ws}, indent=2) + "\n")
        return abi, ws

    @property
    def front_path(self):
        return os.path.join(self.dir, "front.json")

    def _cached_front(self):
        """The cached front end when every file is there and matches
        front.json, else None."""
        try:
            with open(self.front_path) as f:
                meta = json.load(f)
            if _read_bytes(self.source_path) != self.source.encode():
                return None
            abi = _read_bytes(self.abi_path)
            ws = meta["warnings"]
            if (_sha256(abi) != meta["abi_sha256"] or meta["abi_version"] != ABI_VERSION
                    or not _valid_warnings(ws)):
                return None
            parse_abi_json(abi.decode())
            return abi.decode(), ws
        except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError):
            return None

    def shared_object(self, opts):
        """(path of the shared object, its metadata), built unless a valid
        one is cached. opts: the build options (Module.build_options); the
        metadata holds tc-opt's warnings, the CPU the code is for ("cpu",
        "features") and whether it calls libgomp ("openmp")."""
        llc, cc = find_tool("llc"), find_tool("cc")
        key = dict(opts)
        if opts["mcpu"] == "native":
            key["host_cpu"] = host_cpu_key()
        k = _key({"front": self.key, "build": key, "llc": tool_identity(llc), "cc": tool_identity(cc)})
        so = os.path.join(self.dir, "lib-O%d-%s.so" % (opts["opt"], k[:16]))
        meta = self._cached_so(so, opts["target"])
        if meta is not None:
            return so, meta
        if opts["target"] == "nvptx64":
            return self._gpu_shared_object(so, opts, key, llc, cc)
        os.makedirs(self.dir, exist_ok=True)
        if not os.path.exists(self.source_path) or _read_bytes(self.source_path) != self.source.encode():
            _write_atomic(self.source_path, self.source)
        tmp = tempfile.mkdtemp(dir=self.dir, prefix=".build-")
        try:
            ll, obj, lib = (os.path.join(tmp, n) for n in ("module.ll", "module.o", "module.so"))
            flags = self._derivatives_flag() + tc_opt_flags(opts)
            usage = "tir.compile(%s)" % ", ".join("%s=%r" % (n, opts[n]) for n in ("mcpu", "fp_contract", "fp_reassociate", "threads"))
            _, err = self._tool([self.tc_opt] + flags + [self.source_path, "-o", ll], "tc-opt " + " ".join(flags), usage)
            ws = parse_warnings(err, self.source_path)
            with open(ll) as f:
                text = f.read()
            cpu, features = target_cpu(text)
            # Parallel loops call GNU OpenMP's runtime (docs/abi.md).
            openmp = "declare void @GOMP_parallel(" in text
            self._tool([llc] + list(opts["llc_flags"]) + ["-filetype=obj", "-relocation-model=pic", ll, "-o", obj], "llc")
            self._tool([cc, "-shared"] + list(opts["cflags"]) + [obj, "-o", lib, "-lm"] + (["-fopenmp"] if openmp else []),
                       "cc -shared")
            data = _read_bytes(lib)
            _write_atomic(so, data)
            meta = {"source": self.name, "build": key, "tc-opt": tool_identity(self.tc_opt),
                    "llc": tool_identity(llc), "cc": tool_identity(cc), "cpu": cpu, "features": features,
                    "openmp": openmp, "size": len(data), "sha256": _sha256(data), "warnings": ws}
            _write_atomic(so + ".json", json.dumps(meta, indent=2) + "\n")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        self.built.add(so)
        return so, meta

    def _gpu_shared_object(self, so, opts, key, llc, cc):
        """shared_object for target nvptx64 (docs/gpu.md): the kernels'
        LLVM IR from tc-opt, PTX from llc for the architecture opts["mcpu"],
        the host wrapper (tc-opt --emit=cuda-host, the PTX inside it)
        compiled into a shared object with the CPU ABI's signatures, its
        pointers device pointers. No CUDA SDK is needed to build it; the
        driver (libcuda.so.1, or $TIR_CUDA_DRIVER) is loaded on the first
        call."""
        os.makedirs(self.dir, exist_ok=True)
        if not os.path.exists(self.source_path) or _read_bytes(self.source_path) != self.source.encode():
            _write_atomic(self.source_path, self.source)
        tmp = tempfile.mkdtemp(dir=self.dir, prefix=".build-")
        try:
            ll, ptx, host, lib = (os.path.join(tmp, n) for n in ("kernels.ll", "kernels.ptx", "host.c", "module.so"))
            flags = self._derivatives_flag() + tc_opt_flags(opts)
            usage = "tir.compile(%s)" % ", ".join("%s=%r" % (n, opts[n]) for n in ("target", "mcpu", "fp_contract", "fp_reassociate"))
            _, err = self._tool([self.tc_opt] + flags + [self.source_path, "-o", ll], "tc-opt " + " ".join(flags), usage)
            ws = parse_warnings(err, self.source_path)
            self._tool([llc] + list(opts["llc_flags"]) + ["-march=nvptx64", "-mcpu=" + opts["mcpu"], ll, "-o", ptx],
                       "llc -march=nvptx64")
            self._tool([self.tc_opt] + flags + ["--emit=cuda-host", "--ptx=" + ptx, self.source_path, "-o", host],
                       "tc-opt --emit=cuda-host")
            self._tool([cc, "-shared", "-fPIC", "-O2"] + list(opts["cflags"]) + [host, "-o", lib, "-ldl", "-lpthread"],
                       "cc -shared")
            data = _read_bytes(lib)
            _write_atomic(so, data)
            meta = {"source": self.name, "build": key, "tc-opt": tool_identity(self.tc_opt),
                    "llc": tool_identity(llc), "cc": tool_identity(cc), "cpu": opts["mcpu"], "features": "",
                    "openmp": False, "size": len(data), "sha256": _sha256(data), "warnings": ws}
            _write_atomic(so + ".json", json.dumps(meta, indent=2) + "\n")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        self.built.add(so)
        return so, meta

    def _cached_so(self, so, target):
        """The metadata of a cached shared object that is the one its JSON
        describes and an ELF shared object for target, else None."""
        try:
            if target == "nvptx64":
                target = host_target()  # the host wrapper runs here
            if not _elf_shared_object(so, target):
                return None
            with open(so + ".json") as f:
                meta = json.load(f)
            if os.path.getsize(so) != meta["size"] or _sha256(_read_bytes(so)) != meta["sha256"]:
                return None
            ws = meta.get("warnings", [])
            if (not _valid_warnings(ws) or not isinstance(meta.get("cpu"), str)
                    or not isinstance(meta.get("features"), str) or not isinstance(meta.get("openmp"), bool)):
                return None
            return meta
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def discard(self, so):
        """Removes a shared object that would not load, so that the next
        shared_object() builds it again."""
        for p in (so + ".json", so):
            try:
                os.unlink(p)
            except OSError:
                pass

    def _derivatives_flag(self):
        return ["--derivatives"] if self.derivatives else []

    def _tool(self, cmd, stage, usage=None):
        self.tools_run.append(cmd)
        return _run(cmd, stage, self.source_path, self.name, usage)

    def warning(self, w):
        """A CompileWarning for a stored warning, naming the user's file."""
        def loc(d):
            f = self.name if d.get("file") is None else d["file"]
            return f if d.get("line") is None else "%s:%d:%d" % (f, d["line"], d["col"])
        lines = ["%s: warning: %s" % (loc(w), w["message"])] + list(w.get("excerpt", []))
        notes = []
        for n in w.get("notes", []):
            notes.append("%s: note: %s" % (loc(n), n["message"]))
            lines += [notes[-1]] + list(n.get("excerpt", []))
        file = self.name if w.get("file") is None else w["file"]
        return CompileWarning("\n".join(lines), file, w.get("line"), w.get("col"), w["message"], notes)
