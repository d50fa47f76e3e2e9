# TIR: the tc-opt tensor-IR toolchain.
#
#   make deps    install the system tools the tests use (LLVM 14, gcc, gfortran, MLIR 16, Debian's python3-numpy
#                and python3-torch for python/, Open MPI for examples/mpi, OpenBLAS for make bench), only when missing,
#                and fetch CUDA's ptxas and libdevice into .deps/cuda
#   make build   build bin/tc-opt and bin/tc-run
#   make run     compile the bundled Laplacian with tc-opt + llc + gcc, run it, compare with the interpreter
#   make test    vet and run every test (golden, diagnostics, end-to-end)
#   make test-pip  pip install ./python into a fresh venv, run the Python tests from the installed copy
#   make fuzz    run each fuzz target for FUZZTIME (60s), then compare RANDPROGS (10000) random
#                programs between the interpreter and every compiled mode (test/fuzz/run.sh; ~1 h on 2 cores)
#   make grammar regenerate the ANTLR parser (needs npx; the result is committed)

GO      ?= go
BIN     := bin
EXAMPLE ?= ../shared/examples/laplacian.tir

# ptxas (CUDA 11.8) and libdevice.10.bc, fetched from Debian non-free
# without installing anything (test/tools/fetch-cuda.sh); git-ignored.
CUDA_DEPS := .deps/cuda

# apt-get needs root; use sudo when we are not root and it exists.
SUDO := $(shell [ "$$(id -u)" -ne 0 ] && command -v sudo)

.PHONY: all deps build test test-pip run vet bench clean fuzz
all: build

deps:
	@missing=""; \
	command -v llc-14 >/dev/null 2>&1 || missing="$$missing llvm-14"; \
	[ -x /usr/lib/llvm-14/bin/FileCheck ] || missing="$$missing llvm-14-tools"; \
	command -v gcc >/dev/null 2>&1 || missing="$$missing gcc"; \
	command -v gfortran >/dev/null 2>&1 || missing="$$missing gfortran"; \
	[ -x /usr/lib/llvm-16/bin/mlir-opt ] || missing="$$missing mlir-16-tools"; \
	/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || missing="$$missing python3-numpy"; \
	/usr/bin/python3 -c 'import ensurepip, setuptools' >/dev/null 2>&1 || missing="$$missing python3-venv python3-setuptools"; \
	command -v mpicc >/dev/null 2>&1 || missing="$$missing libopenmpi-dev"; \
	command -v mpirun >/dev/null 2>&1 || missing="$$missing openmpi-bin"; \
	[ -e /usr/include/x86_64-linux-gnu/cblas.h ] || [ -e /usr/include/cblas.h ] || [ -e /usr/include/aarch64-linux-gnu/cblas.h ] || missing="$$missing libopenblas-dev"; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
	@# PyTorch (about 180 MB) only serves the DLPack tests of python/, which
	@# skip without it: a failed install is a warning, not a failed build.
	@/usr/bin/python3 -c 'import torch' >/dev/null 2>&1 || { echo "installing: python3-torch"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-torch >/dev/null \
	  || echo "make deps: warning: python3-torch could not be installed; the Python tests with PyTorch tensors will be skipped"; }
	@sh test/tools/fetch-cuda.sh $(CUDA_DEPS)

# The commit --version prints (tools/internal/version): HEAD, "-dirty" when
# the working tree has changes; Go's own vcs.revision when git is missing.
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)
LDFLAGS := $(if $(filter-out -dirty,$(COMMIT)),-X tir/tools/internal/version.Commit=$(COMMIT))

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/ ./tools/tc-opt ./tools/tc-run

vet:
	$(GO) vet ./...

# -timeout: the end-to-end package takes a few minutes on 2 cores; Go's
# default of 10 minutes per package leaves too little room on a slow one.
test: deps build vet
	$(GO) test -timeout 45m ./...

# pip install ./python into a fresh venv and the Python package's tests
# from the installed copy (about 45 s on 2 cores; make test runs it too,
# as TestPipInstall).
test-pip: deps build
	sh test/pip_test.sh

FUZZTIME  ?= 60s
RANDPROGS ?= 10000
fuzz: deps build
	GO=$(GO) FUZZTIME=$(FUZZTIME) RANDPROGS=$(RANDPROGS) sh test/fuzz/run.sh

run: deps build
	$(BIN)/tc-run $(EXAMPLE) --random 1 --check

bench: deps build
	$(GO) run ./test/bench $(BENCHFLAGS)

clean:
	rm -rf $(BIN)

include grammar/Makefile.frag
