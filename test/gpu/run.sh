#!/usr/bin/env bash
# test/gpu/run.sh — the NVPTX backend on a real GPU (never run by make test).
#
# On a machine with an NVIDIA GPU and its driver (libcuda.so.1), this
#   1. compiles every shared example and every end-to-end program of
#      test/testdata/{e2e,gpu} for nvptx64 (tc-opt -O2 | llc -march=nvptx64),
#      runs it through the generated CUDA host wrapper on random inputs and
#      compares every element with the reference interpreter
#      (tc-run --target=nvptx64 --check);
#   2. measures the laplacian (f32, 512 x 512 x 64) and hdiff (f64, 2048^2)
#      kernels in GB/s of compulsory traffic, next to a device-to-device copy
#      of the same number of bytes measured in the same run
#      (tc-run --target=nvptx64 --bench);
#   3. where ptxas is found, also passes every program's PTX through
#      ptxas -arch=sm_90;
#   4. runs the derivatives of the examples (@f_jvp, @f_vjp) against the
#      interpreter's and times the adjoints of the bench kernels next to
#      their functions;
#   5. runs the Python package's GPU tests (CuPy, PyTorch) where python3
#      has them.
#
# It needs bin/tc-run (built with `make build`, or by this script when Go
# is installed), LLVM 14's llc and gcc. On a GPU machine without LLVM 14,
# record the PTX here and replay it there: test/gpu/llc-cache says how.
# TIR_CUDA_DRIVER names another driver library, TIR_CUDA_DEVICE another
# device. Exit status 0 when every
# check passed. Sizes can be raised: LAP_N, LAP_M, LAP_L, HDIFF_N.
# EMULATE=1 runs the same steps without a GPU, the kernels on the CPU under
# the tests' CUDA driver emulator (to check the script; timings meaningless).
set -u
cd "$(dirname "$0")/../.."

if [ ! -x bin/tc-run ] || [ ! -x bin/tc-opt ]; then
	if command -v go >/dev/null 2>&1; then
		go build -o bin/ ./tools/tc-opt ./tools/tc-run || exit 2
	else
		echo "gpu: bin/tc-run is missing and Go is not installed (run make build first)" >&2
		exit 2
	fi
fi
if ! command -v llc-14 >/dev/null 2>&1 && [ ! -x /usr/lib/llvm-14/bin/llc ] && [ -z "${TIR_LLC:-}" ]; then
	echo "gpu: LLVM 14's llc is needed to make PTX (or set TIR_LLC)" >&2
	exit 2
fi
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

ex=../shared/examples
fail=0
mode=--target=nvptx64
[ "${EMULATE:-0}" = 1 ] && mode="--target=nvptx64 --emulate-gpu"

# ptxas, where there is one (the CUDA toolkit's, or CUDA 11.8's from make
# deps), checks every program's PTX for sm_90 too.
ptxas=$(command -v ptxas || ls /usr/local/cuda/bin/ptxas .deps/cuda/bin/ptxas 2>/dev/null | head -1)
llc=${TIR_LLC:-$(command -v llc-14 || echo /usr/lib/llvm-14/bin/llc)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ptx_ok=0
ptxas_check() {
	[ -n "$ptxas" ] || return 0
	if bin/tc-opt -O2 --target=nvptx64 "$1" -o "$work/k.ll" 2>/dev/null &&
		"$llc" -O3 -march=nvptx64 -mcpu=sm_80 "$work/k.ll" -o "$work/k.ptx" &&
		"$ptxas" -arch=sm_90 "$work/k.ptx" -o "$work/k.cubin"; then
		ptx_ok=$((ptx_ok + 1))
	else
		echo "FAIL: ptxas -arch=sm_90 on $1"
		fail=1
	fi
}

run() {
	label=$1
	shift
	printf '== %s\n' "$label"
	# shellcheck disable=SC2086
	if ! bin/tc-run "$@" $mode --random 1 --check; then
		echo "FAIL: $label"
		fail=1
	fi
	ptxas_check "$1"
}

# 1. Every example and end-to-end program, with sizes that are not
#    multiples of the block sizes.
run laplacian.tir "$ex/laplacian.tir"
run "laplacian_symbolic.tir N=37 M=45" "$ex/laplacian_symbolic.tir" --arg N=37 --arg M=45
run hdiff.tir "$ex/hdiff.tir"
run temporaries.tir "$ex/temporaries.tir"
run "nabla.tir NV=1000 NE=1517" "$ex/nabla.tir" --arg NV=1000 --arg NE=1517
run tridiag.tir "$ex/tridiag.tir"
run "matmul.tc M=13 K=17 N=9" "$ex/matmul.tc" --arg M=13 --arg K=17 --arg N=9
run "conv1d.tc N=40 W=5" "$ex/conv1d.tc" --arg N=40 --arg W=5
run "fcrelu.tc B=4 M=9 N=6" "$ex/fcrelu.tc" --arg B=4 --arg M=9 --arg N=6
# -O2 kernels compute 4 points per thread (coarsen=4): extents where the
# last threads have fewer (z, y, and x with 1024 points per block).
run "lap3d_f32 N=13 M=9 L=33" test/bench/kernels/lap3d_f32.tir --arg N=13 --arg M=9 --arg L=33
run "hdiff N=70 M=45" test/bench/kernels/hdiff.tir --arg N=70 --arg M=45
run "axpy N=2049" test/bench/kernels/axpy.tir --arg N=2049
for f in test/testdata/e2e/*.tir test/testdata/gpu/*.tir; do
	syms=$(sed -n 's#^// SYMS:##p' "$f" | tr ' ' '\n' | sed -n 's#^\(.*=.*\)$#--arg \1#p' | tr '\n' ' ')
	# shellcheck disable=SC2086
	run "$(basename "$f") $syms" "$f" $syms
done

# 2. Bandwidth of the stencils against a device copy.
printf '== bench lap3d_f32 %sx%sx%s\n' "${LAP_N:-512}" "${LAP_M:-512}" "${LAP_L:-64}"
# shellcheck disable=SC2086
bin/tc-run test/bench/kernels/lap3d_f32.tir $mode --random 1 \
	--arg N="${LAP_N:-512}" --arg M="${LAP_M:-512}" --arg L="${LAP_L:-64}" --bench 50 || fail=1
printf '== bench hdiff f64 %sx%s\n' "${HDIFF_N:-2048}" "${HDIFF_N:-2048}"
# shellcheck disable=SC2086
bin/tc-run test/bench/kernels/hdiff.tir $mode --random 1 \
	--arg N="${HDIFF_N:-2048}" --arg M="${HDIFF_N:-2048}" --bench 50 || fail=1

# 3. Derivatives (docs/derivatives.md): @f_jvp and @f_vjp of the examples
#    and bench kernels, compared with the interpreter's, and the adjoints'
#    time next to their function's.
for spec in "laplacian_symbolic.tir|laplacian|--arg N=37 --arg M=45" "hdiff.tir|hdiff|" \
	"tridiag.tir|solve_tridiag|" "nabla.tir|nabla|--arg NV=1000 --arg NE=1517" \
	"matmul.tc|matmul|--arg M=13 --arg K=17 --arg N=9"; do
	IFS='|' read -r file fn args <<<"$spec"
	for kind in jvp vjp; do
		printf '== %s @%s_%s %s\n' "$file" "$fn" "$kind" "$args"
		# shellcheck disable=SC2086
		if ! bin/tc-run "$ex/$file" --derivatives --entry "${fn}_$kind" $args $mode --random 1 --check; then
			echo "FAIL: $file @${fn}_$kind"
			fail=1
		fi
	done
done
for spec in "hdiff.tir|hdiff|--arg N=${HDIFF_N:-2048} --arg M=${HDIFF_N:-2048}" \
	"lap3d_f64.tir|lap3d_f64|--arg N=${LAP_N:-512} --arg M=${LAP_M:-512} --arg L=${LAP_L:-64}" \
	"tridiag.tir|solve_tridiag|--arg N=${TRI_N:-256} --arg M=${TRI_N:-256} --arg L=${TRI_L:-80}" \
	"nabla.tir|nabla|--arg NV=${NABLA_NV:-1000000} --arg NE=${NABLA_NE:-3000000}"; do
	IFS='|' read -r file fn args <<<"$spec"
	for entry in "$fn" "${fn}_vjp"; do
		printf '== bench %s @%s %s\n' "$file" "$entry" "$args"
		# shellcheck disable=SC2086
		bin/tc-run test/bench/kernels/$file --derivatives --entry "$entry" $args $mode --random 1 --bench 20 || fail=1
	done
done

# 4. The Python package's GPU tests (python/tests/test_gpu.py) on CuPy
#    arrays and PyTorch CUDA tensors, where python3 has them.
py=${PYTHON:-python3}
if "$py" -c 'import numpy' 2>/dev/null; then
	echo "== python tests/test_gpu.py ($("$py" --version 2>&1))"
	if [ "${EMULATE:-0}" = 1 ]; then
		echo "(skipped under EMULATE=1: go test ./test -run TestPythonGPUEmulated runs them on the emulator)"
	elif ! (cd python/tests && TIR_TC_OPT="$PWD/../../bin/tc-opt" TIR_TC_RUN="$PWD/../../bin/tc-run" TIR_LLC="$llc" \
		"$py" -B -m unittest -v test_gpu); then
		echo "FAIL: python test_gpu"
		fail=1
	fi
else
	echo "no python3 with NumPy: the Python GPU tests were not run"
fi

if [ -n "$ptxas" ]; then
	echo "ptxas -arch=sm_90 ($("$ptxas" --version | grep -o 'release [0-9.]*')) accepted the PTX of $ptx_ok programs"
else
	echo "no ptxas found: the PTX was not checked for sm_90"
fi
if [ $fail -eq 0 ]; then echo "gpu: all checks passed"; else echo "gpu: some checks FAILED"; fi
exit $fail
