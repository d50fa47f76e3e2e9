#!/bin/sh
# Regenerates the generic-form test inputs from the custom-syntax sources in
# src/ with MLIR 16, so that the tests need no mlir-opt:
#   cd lower/tollvm/testdata && ./regen.sh
set -e
MLIR_OPT=${MLIR_OPT:-/usr/lib/llvm-16/bin/mlir-opt}
for f in src/*.mlir; do
	out=$(basename "$f")
	{
		echo "// Generated from $f by: mlir-opt --mlir-print-op-generic (MLIR 16). Do not edit."
		"$MLIR_OPT" --allow-unregistered-dialect --mlir-print-op-generic "$f"
	} > "$out"
done
