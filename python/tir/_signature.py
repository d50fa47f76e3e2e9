"""The ABI of a module's functions, read from `tc-opt --emit=abi-json`.

The JSON (docs/abi.md, "The ABI as JSON") lists, per tir.func, the
parameters of `f` in ABI order: which are descriptors, their element types
and ranks, the intervals whose sizes the compiled code checks, the size
parameters, the unknown extents (`?_inp_I`) read from descriptors, and the
names of `f_error`, `f_result_shape` and `f_result_shape_data`.
"""

import json

from . import _sizeexpr

# The abi_version of --emit=abi-json this package reads; the cache keys
# hold it, so that entries written for another version are not read.
ABI_VERSION = 1

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


class Dim:
    """One dimension of a tensor parameter: its name and interval [lo:hi]."""

    __slots__ = ("name", "lo", "hi", "size")

    def __init__(self, name, lo, hi, size):
        self.name = name
        self.lo = lo      # _sizeexpr.Expr
        self.hi = hi
        self.size = size  # hi - lo as tc-opt prints it (max(..., 0) when it may be empty)

    def __repr__(self):
        return "%s[%s:%s]" % (self.name, self.lo, self.hi)


class Param:
    """A tensor argument or result of a compiled function."""

    __slots__ = ("name", "cname", "elem", "dims", "is_input", "index")

    def __init__(self, name, cname, elem, dims, is_input, index):
        self.name = name          # the tir name (results: result, result0, ...)
        self.cname = cname        # the C parameter name (the header's, f_error's messages)
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
        self.symbol = name    # f's symbol in the shared object
        self.error_function = name + "_error"
        self.result_shape_function = name + "_result_shape"
        self.result_shape_data_function = None  # only with extents computed from data
        self.inputs = []      # [Param]
        self.results = []     # [Param]
        self.symbols = []     # the size symbols' tir names, in ABI order (the expressions' variables)
        self.symbol_cnames = []  # their C parameter names
        self.unknown = {}     # ?_x_I -> (input Param, dimension index)

    @property
    def symbol_names(self):
        return list(self.symbols)

    def __repr__(self):
        ins = ", ".join(repr(p) for p in self.inputs)
        outs = ", ".join(repr(p) for p in self.results)
        syms = ""
        if self.symbols:
            syms = " [sizes: %s]" % ", ".join(self.symbols)
        return "@%s(%s) -> (%s)%s" % (self.name, ins, outs, syms)


def _param(fname, j, is_input, index):
    elem = j["elem"]
    if elem not in ELEMENTS:
        raise ValueError("@%s: unsupported element type %r of %s" % (fname, elem, j["name"]))
    want = "input" if is_input else "result"
    if j["role"] != want:
        raise ValueError("@%s: %s has role %r in %ss" % (fname, j["name"], j["role"], want))
    dims = [Dim(d["name"], _sizeexpr.parse(d["lo"]), _sizeexpr.parse(d["hi"]), _sizeexpr.parse(d["size"]))
            for d in j["dims"]]
    return Param(j["name"], j["c_name"], elem, dims, is_input, index)


def parse_abi_json(text):
    """The signatures of every function of `tc-opt --emit=abi-json`, in
    order. A document of another abi_version, or one that lacks a field,
    is a ValueError."""
    doc = json.loads(text)
    if not isinstance(doc, dict) or doc.get("abi_version") != ABI_VERSION:
        raise ValueError("tc-opt --emit=abi-json gave abi_version %r; this package reads version %d"
                         % (doc.get("abi_version") if isinstance(doc, dict) else None, ABI_VERSION))
    sigs = []
    try:
        for f in doc["functions"]:
            sig = Signature(f["name"])
            sig.symbol = f["symbol"]
            sig.error_function = f["error_function"]
            sig.result_shape_function = f["result_shape_function"]
            sig.result_shape_data_function = f["result_shape_data_function"]
            sig.inputs = [_param(sig.name, a, True, i) for i, a in enumerate(f["args"])]
            sig.results = [_param(sig.name, r, False, i) for i, r in enumerate(f["results"])]
            sig.symbols = [s["name"] for s in f["size_symbols"]]
            sig.symbol_cnames = [s["c_name"] for s in f["size_symbols"]]
            by_name = {p.name: p for p in sig.inputs}
            for u in f["unknown_extents"]:
                p = by_name[u["arg"]]
                if not 0 <= u["index"] < p.rank or p.dims[u["index"]].name != u["dim"]:
                    raise ValueError("@%s: unknown extent %s names dimension %s of %s at %d"
                                     % (sig.name, u["name"], u["dim"], p.name, u["index"]))
                sig.unknown[u["name"]] = (p, u["index"])
            sigs.append(sig)
    except (KeyError, TypeError) as e:
        raise ValueError("tc-opt --emit=abi-json: malformed document (%s: %s)" % (type(e).__name__, e)) from None
    return sigs
