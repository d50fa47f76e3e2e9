package scf_test

import (
	"testing"

	_ "tir/dialects/arith"
	_ "tir/dialects/cf"
	_ "tir/dialects/fn"
	"tir/dialects/fn/upstreamtest"
	_ "tir/dialects/memref"
	_ "tir/dialects/scf"
)

func TestCorpus(t *testing.T) { upstreamtest.RunCorpus(t, "testdata/*.mlir") }
