"""Size expressions as `tc-opt --emit=abi-json` prints them.

The ABI description writes intervals and extents with the syntax of the
`sizeexpr` package (dialects/sizeexpr/print.go): integers, symbols (`N`,
`?_inp_I` for an unknown extent), `+`, `-`, `k*x`, `x floordiv k`,
`x ceildiv k`, `x mod k` and `min(...)`, `max(...)` calls. This module
parses them into small trees, evaluates them, and solves `expr = value` for
one unknown symbol when the expression is linear in it.
"""

import re

_TOKEN = re.compile(r"\s*(?:(\d+)|(\??[A-Za-z_$][\w$.]*)|(.))")
_MULOPS = ("*", "floordiv", "ceildiv", "mod")


class Expr:
    """A parsed size expression: ('int', v), ('var', name), ('neg', x),
    ('add', x, y), ('sub', x, y), (op, x, y) for the multiplicative ops,
    ('min'|'max', [args])."""

    __slots__ = ("node", "text")

    def __init__(self, node, text):
        self.node = node
        self.text = text

    def __repr__(self):
        return "Expr(%r)" % self.text

    def __str__(self):
        return self.text

    def vars(self):
        """The variable names, in order of first appearance."""
        out = []
        _vars(self.node, out)
        return out

    def eval(self, env):
        """The value with the variables of env (a KeyError names a missing one)."""
        return _eval(self.node, env)

    def solve(self, var, value, env):
        """The integer x with self = value when var = x and the other
        variables come from env, or None when the expression is not linear
        in var or no integer solves it."""
        node = self.node
        # An extent is printed max(e, 0) when the interval may be inverted;
        # a positive extent is e itself.
        while node[0] == "max" and len(node[1]) == 2 and node[1][1] == ("int", 0) and value > 0:
            node = node[1][0]

        def f(x):
            e = dict(env)
            e[var] = x
            return _eval(node, e)

        try:
            f0, f1, f2 = f(0), f(1), f(2)
        except (KeyError, ZeroDivisionError):
            return None
        a = f1 - f0
        if a == 0 or f2 - f1 != a or (value - f0) % a != 0:
            return None
        x = (value - f0) // a
        try:
            e = dict(env)
            e[var] = x
            if _eval(self.node, e) != value:
                return None
        except (KeyError, ZeroDivisionError):
            return None
        return x


def parse(text):
    """Parses a size expression; raises ValueError on anything else."""
    toks = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            break
        pos = m.end()
        if m.group(1) is not None:
            toks.append(("int", int(m.group(1))))
        elif m.group(2) is not None:
            word = m.group(2)
            if word in ("floordiv", "ceildiv", "mod"):
                toks.append(("op", word))
            else:
                toks.append(("name", word))
        elif m.group(3).strip():
            toks.append(("op", m.group(3)))
    p = _Parser(toks, text)
    node = p.sum()
    if p.i != len(toks):
        raise ValueError("cannot parse size expression %r" % text)
    return Expr(node, text)


class _Parser:
    def __init__(self, toks, text):
        self.toks = toks
        self.i = 0
        self.text = text

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def eat(self, op):
        if self.peek() == ("op", op):
            self.i += 1
            return True
        return False

    def fail(self):
        raise ValueError("cannot parse size expression %r" % self.text)

    def sum(self):
        node = self.term()
        while True:
            if self.eat("+"):
                node = ("add", node, self.term())
            elif self.eat("-"):
                node = ("sub", node, self.term())
            else:
                return node

    def term(self):
        if self.eat("-"):
            return ("neg", self.term())
        node = self.factor()
        while True:
            kind, v = self.peek()
            if kind == "op" and v in _MULOPS:
                self.i += 1
                node = (v, node, self.factor())
            else:
                return node

    def factor(self):
        kind, v = self.peek()
        if kind == "int":
            self.i += 1
            return ("int", v)
        if kind == "name" and v in ("min", "max") and self.i + 1 < len(self.toks) and self.toks[self.i + 1] == ("op", "("):
            self.i += 2
            args = [self.sum()]
            while self.eat(","):
                args.append(self.sum())
            if not self.eat(")"):
                self.fail()
            return (v, args)
        if kind == "name":
            self.i += 1
            return ("var", v)
        if self.eat("("):
            node = self.sum()
            if not self.eat(")"):
                self.fail()
            return node
        self.fail()


def _vars(node, out):
    kind = node[0]
    if kind == "var":
        if node[1] not in out:
            out.append(node[1])
    elif kind in ("min", "max"):
        for a in node[1]:
            _vars(a, out)
    elif kind == "neg":
        _vars(node[1], out)
    elif kind != "int":
        _vars(node[1], out)
        _vars(node[2], out)


def _eval(node, env):
    kind = node[0]
    if kind == "int":
        return node[1]
    if kind == "var":
        return int(env[node[1]])
    if kind == "neg":
        return -_eval(node[1], env)
    if kind == "min":
        return min(_eval(a, env) for a in node[1])
    if kind == "max":
        return max(_eval(a, env) for a in node[1])
    x, y = _eval(node[1], env), _eval(node[2], env)
    if kind == "add":
        return x + y
    if kind == "sub":
        return x - y
    if kind == "*":
        return x * y
    if kind == "floordiv":
        return x // y
    if kind == "ceildiv":
        return -((-x) // y)
    if kind == "mod":
        return x % y
    raise ValueError("unknown size operation %r" % kind)
