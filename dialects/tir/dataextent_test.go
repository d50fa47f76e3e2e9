package tir

import (
	"math"
	"testing"
)

// The count of tir.iota, computed without overflow for any operands.
func TestIotaExtent(t *testing.T) {
	for _, c := range []struct {
		start, stop, step, n int64
		ok                   bool
	}{
		{0, 10, 1, 10, true},
		{2, 11, 3, 3, true},
		{20, -11, -3, 11, true},
		{5, 5, 1, 0, true},
		{7, 2, 1, 0, true},
		{2, 7, -1, 0, true},
		{0, 10, 0, 0, false},
		{math.MinInt64, math.MaxInt64, 1, 0, false},
		{math.MinInt64, math.MaxInt64, 2, 0, false},
		{math.MinInt64, math.MaxInt64, 3, 6148914691236517205, true},
		{math.MaxInt64, math.MinInt64, math.MinInt64, 2, true}, // MaxInt64, -1
		{math.MaxInt64, math.MinInt64, -2, 0, false},
		{-1, math.MaxInt64, math.MaxInt64, 2, true},
	} {
		n, ok := IotaExtent(c.start, c.stop, c.step)
		if n != c.n || ok != c.ok {
			t.Errorf("IotaExtent(%d, %d, %d) = %d, %v; want %d, %v", c.start, c.stop, c.step, n, ok, c.n, c.ok)
		}
	}
}
