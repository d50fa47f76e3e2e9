package memref_test

import (
	"testing"

	_ "tir/dialects/arith"
	_ "tir/dialects/fn"
	"tir/dialects/fn/upstreamtest"
	_ "tir/dialects/memref"
)

func TestCorpus(t *testing.T) { upstreamtest.RunCorpus(t, "testdata/*.mlir") }
