package memref_test

import (
	"testing"

	_ "tir/dialects/arith"
	_ "tir/dialects/fn"
	"tir/dialects/internal/dialecttest"
	_ "tir/dialects/memref"
)

func TestCorpus(t *testing.T) { dialecttest.RunCorpus(t, "testdata/*.mlir") }
