"""The exceptions of the tir package."""

import re

_ARG_DIM = re.compile(r"argument '([^']*)'(?: dimension (\S+?):)?")


class TirError(Exception):
    """Base class of the errors this package raises."""


class CompileError(TirError):
    """tc-opt, llc or the C compiler failed; the message holds its diagnostics."""


class ArgumentError(TirError, ValueError):
    """An argument does not fit the function's signature: its shape (the
    compiled code's own check, as f_error words it), its dtype, its rank, a
    missing or unknown name, a size symbol that cannot be inferred.

    `argument` and `dimension` name what is wrong when the message does
    (`argument 'inp' dimension J: expected extent 9, got 8`), else None."""

    def __init__(self, message, argument=None, dimension=None):
        super().__init__(message)
        if argument is None:
            m = _ARG_DIM.search(message)
            if m:
                argument, dimension = m.group(1), m.group(2)
        self.argument = argument
        self.dimension = dimension


class RunError(TirError, RuntimeError):
    """A run-time check of the function failed that concerns no single
    argument (a view precondition, an assume_shape), or tc-run failed."""


class CopyWarning(UserWarning):
    """An argument was copied because the ABI cannot describe it (its last
    dimension is not contiguous, a stride is negative, it is misaligned)."""


class CompileWarning(UserWarning):
    """tc-opt warned while compiling the module: an unchecked precondition,
    a truncated reduction, a reduction index that range inference narrowed
    (docs/tc.md). The message starts with `file:line:col: warning:` and ends
    with the notes; the same warnings come back from a cached build.

    `file`, `line` and `col` locate it (None when tc-opt gave no location),
    `message` is tc-opt's text without the location, `notes` the notes'
    first lines."""

    def __init__(self, text, file=None, line=None, col=None, message=None, notes=()):
        super().__init__(text)
        self.file = file
        self.line = line
        self.col = col
        self.message = message if message is not None else text
        self.notes = list(notes)
