#!/bin/sh
# make test-pip: `pip install ./python` into a fresh venv (offline, with
# the system's setuptools and NumPy), then the package's tests from the
# installed copy, with tc-opt and tc-run found on PATH (docs/python.md,
# "Installing with pip").
#
#   TIR_PYTHON  the Python to make the venv with (default /usr/bin/python3)
#   TIR_BIN     where tc-opt and tc-run are (default the repository's bin/)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
py=${TIR_PYTHON:-/usr/bin/python3}
bin=${TIR_BIN:-$root/bin}
for t in tc-opt tc-run; do
	[ -x "$bin/$t" ] || { echo "pip_test: $bin/$t missing: run make build" >&2; exit 1; }
done
"$py" -c 'import numpy, setuptools' 2>/dev/null || {
	echo "pip_test: $py lacks NumPy or setuptools (make deps)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tir-pip-test-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
"$py" -m venv --system-site-packages "$tmp/venv"
# Built from a copy: setuptools writes build/ and tir.egg-info next to
# pyproject.toml, which would litter a tree others work in.
cp -R "$root/python" "$tmp/src"
rm -rf "$tmp/src/build" "$tmp/src"/*.egg-info
find "$tmp/src" -name __pycache__ -prune -exec rm -rf {} +
"$tmp/venv/bin/python" -m pip install --quiet --no-build-isolation --no-index "$tmp/src"
"$tmp/venv/bin/python" -m pip show tir | sed -n '1,2p'
# The tests of the tree, on the installed package: not the tree's copy
# (TIR_TEST_INSTALLED), the tools from PATH (no TIR_TC_OPT, TIR_TC_RUN).
cd "$tmp"
env -u TIR_TC_OPT -u TIR_TC_RUN PATH="$bin:$PATH" TIR_TEST_INSTALLED=1 TIR_CACHE_DIR="$tmp/cache" \
	PYTHONDONTWRITEBYTECODE=1 "$tmp/venv/bin/python" -B -m unittest discover -s "$root/python/tests" -t "$root/python/tests"
