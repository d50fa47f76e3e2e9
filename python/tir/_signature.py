"""The ABI of a module's functions, read from `tc-opt --emit=c-header`.

The header declares, per tir.func, the prototype of `f`, `f_error` and
`f_result_shape`, and a comment listing every argument and result with its
element type, dimensions and intervals (docs/abi.md). That comment is the
machine-independent description this package works from: which parameters
are descriptors, their element types and ranks, the intervals whose sizes
the compiled code checks, the size parameters in ABI order, and the unknown
extents (`?_inp_I`) read from descriptors.
"""

import re

from . import _sizeexpr

# tir element type -> (NumPy dtype name, ctypes type name). i1 is one byte
# holding 0 or 1 (NumPy's bool), f16 the binary16 bits (NumPy's float16),
# bf16 the bfloat16 bits (NumPy has no bfloat16: uint16, the high half of
# a float32).
ELEMENTS = {
    "f16": ("float16", "c_uint16"),
    "bf16": ("uint16", "c_uint16"),
    "f32": ("float32", "c_float"),
    "f64": ("float64", "c_double"),
    "i1": ("bool", "c_uint8"),
    "i8": ("int8", "c_int8"),
    "i16": ("int16", "c_int16"),
    "i32": ("int32", "c_int32"),
    "i64": ("int64", "c_int64"),
}

_C_RESERVED = set("""
auto break case char const continue default do double else enum extern
float for goto if inline int long register restrict return short signed
sizeof static struct switch typedef union unsigned void volatile while
_Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn
_Static_assert _Thread_local
alignas alignof and and_eq asm bitand bitor bool catch char16_t char32_t
class compl constexpr const_cast decltype delete dynamic_cast explicit
export false friend mutable namespace new noexcept not not_eq nullptr
operator or or_eq private protected public reinterpret_cast static_assert
static_cast template this thread_local throw true try typeid typename
using virtual wchar_t xor xor_eq
int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t
intptr_t uintptr_t size_t NULL""".split())


class Dim:
    """One dimension of a tensor parameter: its name and interval [lo:hi]."""

    __slots__ = ("name", "lo", "hi", "size")

    def __init__(self, name, lo, hi, size):
        self.name = name
        self.lo = lo      # _sizeexpr.Expr
        self.hi = hi
        self.size = size  # hi - lo as the header prints it (max(..., 0) when it may be empty)

    def __repr__(self):
        return "%s[%s:%s]" % (self.name, self.lo, self.hi)


class Param:
    """A tensor argument or result of a compiled function."""

    __slots__ = ("name", "cname", "elem", "dims", "is_input", "index")

    def __init__(self, name, cname, elem, dims, is_input, index):
        self.name = name          # the tir name (results: result, result0, ...)
        self.cname = cname        # the C parameter name of the header
        self.elem = elem          # tir element type: f32, i1, ...
        self.dims = dims          # [Dim]; [] for a 0-d tensor
        self.is_input = is_input
        self.index = index        # position among the inputs, or among the results

    @property
    def rank(self):
        return len(self.dims)

    @property
    def dtype(self):
        return ELEMENTS[self.elem][0]

    def domain(self):
        if not self.dims:
            return "scalar"
        return " x ".join(repr(d) for d in self.dims)

    def what(self):
        """How messages name it: argument 'inp', result #0."""
        if self.is_input:
            return "argument '%s'" % self.name
        return "result #%d" % self.index

    def __repr__(self):
        return "%s %s %s" % (self.name, self.elem, self.domain())


class Signature:
    """The ABI view of one exported function."""

    def __init__(self, name):
        self.name = name
        self.inputs = []      # [Param]
        self.results = []     # [Param]
        self.symbols = []     # C names of the int64_t size parameters, in ABI order
        self.symbol_names = []  # their tir names (for tc-run)
        self.unknown = {}     # ?_x_I -> (input Param, dimension index)
        self.checks = []      # run-time checks the comment lists

    def __repr__(self):
        ins = ", ".join(repr(p) for p in self.inputs)
        outs = ", ".join(repr(p) for p in self.results)
        syms = ""
        if self.symbols:
            syms = " [sizes: %s]" % ", ".join(self.symbol_names)
        return "@%s(%s) -> (%s)%s" % (self.name, ins, outs, syms)


_ROW = re.compile(r"^ \*   (\S+)\s+(\S+)\s+(.*?)(?:\s+sizes \{(.*)\})?\s*$")
_DIM = re.compile(r"([^\s\[\]]+)\[([^\[\]:]*):([^\[\]:]*)\]")
_UNKNOWN = re.compile(r"^ \* (\?\S+) is the upper bound of (\S+)'s dimension (\S+): ")


def _split_top(text):
    """Splits at the commas outside parentheses."""
    parts, depth, cur = [], 0, []
    for c in text:
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        if c == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
    if cur or parts:
        parts.append("".join(cur).strip())
    return parts


def _param(row, is_input, index):
    m = _ROW.match(row)
    if not m:
        raise ValueError("unexpected header line %r" % row)
    cname, elem, domain, sizes = m.group(1), m.group(2), m.group(3).strip(), m.group(4)
    if elem not in ELEMENTS:
        raise ValueError("unsupported element type %r in %r" % (elem, row))
    dims = []
    if domain != "scalar":
        found = _DIM.findall(domain)
        size_texts = _split_top(sizes or "")
        if len(size_texts) != len(found):
            raise ValueError("header line %r: %d dimensions but %d sizes" % (row, len(found), len(size_texts)))
        for (dname, lo, hi), st in zip(found, size_texts):
            dims.append(Dim(dname, _sizeexpr.parse(lo), _sizeexpr.parse(hi), _sizeexpr.parse(st)))
    return Param(cname, cname, elem, dims, is_input, index)


def parse_header(text):
    """The signatures of every function a C header declares, in order."""
    sigs = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^/\* @(\S+)\s*$", lines[i])
        if not m:
            i += 1
            continue
        sig = Signature(m.group(1))
        i += 1
        section = None
        while i < len(lines) and not lines[i].startswith(" */"):
            line = lines[i]
            i += 1
            if line.startswith(" * Arguments"):
                section = "in"
                continue
            if line.startswith(" * Results"):
                section = "out"
                continue
            if line.startswith(" * Size parameters:"):
                names = line.split(":", 1)[1].strip().rstrip(".")
                sig.symbols = [s.strip() for s in names.split(",") if s.strip()]
                section = None
                continue
            um = _UNKNOWN.match(line)
            if um:
                var, arg, dim = um.groups()
                for p in sig.inputs:
                    if p.cname == arg:
                        for d, dd in enumerate(p.dims):
                            if dd.name == dim:
                                sig.unknown[var] = (p, d)
                section = None
                continue
            if line.startswith(" *   - ") and section == "checks":
                sig.checks.append(line[len(" *   - "):])
                continue
            if line.startswith(" * Returns 0"):
                section = "checks"
                continue
            if section in ("in", "out") and line.startswith(" *   "):
                if section == "in":
                    sig.inputs.append(_param(line, True, len(sig.inputs)))
                else:
                    sig.results.append(_param(line, False, len(sig.results)))
                continue
            if not line.startswith(" *   "):
                section = None if section != "checks" else section
        proto, i = _prototype(lines, i, sig.name)
        _check_prototype(sig, proto)
        sig.symbol_names = [_tir_name(s) for s in sig.symbols]
        sigs.append(sig)
    return sigs


def _prototype(lines, i, name):
    """The parameter list of the prototype after a function's comment:
    `int32_t name(...)`, or `int32_t tir_name(...) __asm__("name")` for a
    name that is also a C library function (the symbol is still name)."""
    while i < len(lines) and not lines[i].startswith("int32_t "):
        i += 1
    if i == len(lines):
        raise ValueError("the header declares no %s(...)" % name)
    text = lines[i].split("(", 1)[1]
    i += 1
    while ")" not in text and i < len(lines):
        text += " " + lines[i].strip()
        i += 1
    return [p.strip() for p in text.split(")", 1)[0].split(",") if p.strip()], i


def _check_prototype(sig, proto):
    """The prototype's parameters must be the comment's, in ABI order."""
    names = [p.split()[-1].lstrip("*") for p in proto]
    want = [p.cname for p in sig.inputs + sig.results] + sig.symbols
    if names != want:
        raise ValueError("@%s: the prototype's parameters %s differ from the comment's %s" % (sig.name, names, want))


def _tir_name(cname):
    """The tir name a C parameter name stands for when the header only
    appended '_' to a C keyword (`int_` for `%int`)."""
    if cname.endswith("_") and cname[:-1] in _C_RESERVED:
        return cname[:-1]
    return cname


_FUNC = re.compile(r"^\s*tir\.func\s+(?:\w+\s+)*@([^\s(]+)\((.*)$")
_ARGNAME = re.compile(r"%([^\s:,()]+)\s*:")


def apply_ir_names(sigs, module_text):
    """Gives the inputs their tir names (`int` rather than the header's
    `int_`), read from the function headers of the printed tir module."""
    by_name = {s.name: s for s in sigs}
    named = set()
    for line in module_text.splitlines():
        m = _FUNC.match(line)
        if not m or m.group(1) not in by_name:
            continue
        sig = by_name[m.group(1)]
        # The parameter list ends at the parenthesis closing the first one.
        rest, depth, end = m.group(2), 1, None
        for k, c in enumerate(rest):
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    end = k
                    break
        if end is None:
            continue
        names = _ARGNAME.findall(rest[:end])
        if len(names) == len(sig.inputs):
            for p, n in zip(sig.inputs, names):
                p.name = n
            named.add(sig.name)
    for sig in sigs:
        if sig.name not in named:
            for p in sig.inputs:
                p.name = _tir_name(p.cname)
