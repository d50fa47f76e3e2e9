package arith_test

import (
	"testing"

	_ "tir/dialects/arith"
	_ "tir/dialects/fn"
	"tir/dialects/internal/dialecttest"
)

func TestCorpus(t *testing.T) { dialecttest.RunCorpus(t, "testdata/*.mlir") }
