package gpu_test

import (
	"testing"

	_ "tir/dialects/arith"
	_ "tir/dialects/fn"
	_ "tir/dialects/gpu"
	"tir/dialects/internal/dialecttest"
	_ "tir/dialects/memref"
	_ "tir/dialects/scf"
)

func TestCorpus(t *testing.T) { dialecttest.RunCorpus(t, "testdata/*.mlir") }
