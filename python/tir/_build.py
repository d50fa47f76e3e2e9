"""Finding the tools and building cached shared objects.

A module is compiled in two cached steps, each done once:

- front end (tc-opt only): the C header (`tc-opt --emit=c-header`, the
  signatures) and the printed tir module (the arguments' tir names), keyed
  by the source text, its kind (.tir or .tc) and tc-opt's identity;
- native code: `tc-opt -O<n>`, `llc -filetype=obj -relocation-model=pic`,
  `cc -shared`, keyed by the front-end key, the options, and llc's and cc's
  identities.

A tool's identity is its resolved path and the SHA-256 of the executable:
a rebuilt tc-opt or an upgraded llc gives new keys, and a cache hit runs
no tool at all (not even `--version`).
"""

import hashlib
import json
import os
import platform
import shutil
import subprocess
import tempfile

from ._errors import CompileError

_HERE = os.path.dirname(os.path.abspath(__file__))
REPO_BIN = os.path.normpath(os.path.join(_HERE, "..", "..", "bin"))

# Bumped when the layout of a cache entry changes.
_FORMAT = "tir-python-1"

# tool -> (environment variable, candidates in order)
_TOOLS = {
    "tc-opt": ("TIR_TC_OPT", [os.path.join(REPO_BIN, "tc-opt"), "tc-opt"]),
    "tc-run": ("TIR_TC_RUN", [os.path.join(REPO_BIN, "tc-run"), "tc-run"]),
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
    hint = {"tc-opt": "run `make build`", "tc-run": "run `make build`",
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


def _run(cmd, stage, source_copy=None, source_name=None):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        raise CompileError("%s: cannot run %s: %s" % (stage, cmd[0], e))
    if p.returncode != 0:
        msg = "%s failed (exit %d): %s\n%s" % (stage, p.returncode, " ".join(cmd),
                                               p.stderr.decode(errors="replace").rstrip())
        if source_copy and source_name:
            msg = msg.replace(source_copy, source_name)
        raise CompileError(msg)
    return p.stdout.decode(errors="replace")


class Entry:
    """A cache entry: a directory holding the source, its header, its
    printed module and the shared objects built from it."""

    def __init__(self, source, suffix, name, cache_dir):
        self.source = source
        self.suffix = suffix
        self.name = name  # the user's file name, for messages
        self.tc_opt = find_tool("tc-opt")
        self.key = _key({"format": _FORMAT, "source": hashlib.sha256(source.encode()).hexdigest(),
                         "suffix": suffix, "tc-opt": tool_identity(self.tc_opt)})
        stem = os.path.splitext(os.path.basename(name))[0] or "module"
        stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in stem)[:40]
        self.dir = os.path.join(os.path.abspath(cache_dir), "%s-%s" % (stem, self.key[:24]))
        self.source_path = os.path.join(self.dir, "source" + suffix)
        self.header_path = os.path.join(self.dir, "module.h")
        self.ir_path = os.path.join(self.dir, "module.tir.txt")
        self.tools_run = []  # the commands this process ran for the entry

    def front_end(self):
        """(header text, printed module), running tc-opt unless cached."""
        if not (os.path.exists(self.header_path) and os.path.exists(self.ir_path)
                and os.path.exists(self.source_path)):
            os.makedirs(self.dir, exist_ok=True)
            _write_atomic(self.source_path, self.source)
            header = self._tool([self.tc_opt, "--emit=c-header", self.source_path], "tc-opt --emit=c-header")
            printed = self._tool([self.tc_opt, self.source_path], "tc-opt")
            _write_atomic(self.ir_path, printed)
            _write_atomic(self.header_path, header)
        with open(self.header_path) as f:
            header = f.read()
        with open(self.ir_path) as f:
            printed = f.read()
        return header, printed

    def shared_object(self, opt_level, target, llc_flags, cflags):
        """The path of the shared object, built unless cached."""
        llc, cc = find_tool("llc"), find_tool("cc")
        k = _key({"front": self.key, "opt": opt_level, "target": target, "llc_flags": list(llc_flags), "cflags": list(cflags),
                  "llc": tool_identity(llc), "cc": tool_identity(cc)})
        so = os.path.join(self.dir, "lib-O%d-%s.so" % (opt_level, k[:16]))
        if os.path.exists(so):
            return so
        os.makedirs(self.dir, exist_ok=True)
        if not os.path.exists(self.source_path):
            _write_atomic(self.source_path, self.source)
        tmp = tempfile.mkdtemp(dir=self.dir, prefix=".build-")
        try:
            ll, obj, lib = (os.path.join(tmp, n) for n in ("module.ll", "module.o", "module.so"))
            self._tool([self.tc_opt, "-O%d" % opt_level, "--target=" + target, self.source_path, "-o", ll],
                       "tc-opt -O%d" % opt_level)
            self._tool([llc] + list(llc_flags) + ["-filetype=obj", "-relocation-model=pic", ll, "-o", obj], "llc")
            self._tool([cc, "-shared"] + list(cflags) + [obj, "-o", lib, "-lm"], "cc -shared")
            with open(lib, "rb") as f:
                _write_atomic(so, f.read())
            meta = {"source": self.name, "opt_level": opt_level, "target": target, "llc_flags": list(llc_flags),
                    "cflags": list(cflags), "tc-opt": tool_identity(self.tc_opt),
                    "llc": tool_identity(llc), "cc": tool_identity(cc)}
            _write_atomic(so + ".json", json.dumps(meta, indent=2) + "\n")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return so

    def _tool(self, cmd, stage):
        self.tools_run.append(cmd)
        return _run(cmd, stage, self.source_path, self.name)
