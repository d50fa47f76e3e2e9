"""python -m tir FILE ...: runs a function of FILE like tc-run (the same
arguments and output: docs/tools.md), with the tc-run the package finds
($TIR_TC_RUN, the repository's bin/, PATH)."""

import subprocess
import sys

from ._build import find_tool
from ._errors import CompileError


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        tc_run = find_tool("tc-run")
    except CompileError as e:
        print("python -m tir: %s" % e, file=sys.stderr)
        return 2
    try:
        return subprocess.call([tc_run] + list(argv))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
