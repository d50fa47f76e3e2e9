package affine_test

import (
	"testing"

	_ "tir/dialects/affine"
	_ "tir/dialects/arith"
	_ "tir/dialects/fn"
	"tir/dialects/internal/dialecttest"
	_ "tir/dialects/mathd"
	_ "tir/dialects/memref"
	_ "tir/dialects/scf"
)

func TestCorpus(t *testing.T) { dialecttest.RunCorpus(t, "testdata/*.mlir") }
