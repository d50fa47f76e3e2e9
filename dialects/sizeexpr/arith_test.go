package sizeexpr

import (
	"math"
	"testing"
)

func TestIntHelpers(t *testing.T) {
	for _, tt := range []struct{ a, c, fd, cd, md int64 }{
		{7, 2, 3, 4, 1},
		{-7, 2, -4, -3, 1},
		{-8, 2, -4, -4, 0},
		{0, 3, 0, 0, 0},
		{-1, 3, -1, 0, 2},
		{math.MinInt64, 2, math.MinInt64 / 2, math.MinInt64 / 2, 0},
	} {
		if got := floorDivInt(tt.a, tt.c); got != tt.fd {
			t.Errorf("%d floordiv %d = %d, want %d", tt.a, tt.c, got, tt.fd)
		}
		if got := ceilDivInt(tt.a, tt.c); got != tt.cd {
			t.Errorf("%d ceildiv %d = %d, want %d", tt.a, tt.c, got, tt.cd)
		}
		if got := floorModInt(tt.a, tt.c); got != tt.md {
			t.Errorf("%d mod %d = %d, want %d", tt.a, tt.c, got, tt.md)
		}
	}
	for _, tt := range []struct {
		a, b int64
		ok   bool
	}{
		{math.MaxInt64, 1, true}, {math.MaxInt64, 2, false}, {math.MinInt64, -1, false},
		{math.MinInt64, 1, true}, {-1 << 31, 1 << 32, true}, {1 << 32, 1 << 31, false},
	} {
		if _, ok := mulOK(tt.a, tt.b); ok != tt.ok {
			t.Errorf("mulOK(%d, %d) ok = %v", tt.a, tt.b, ok)
		}
	}
	if _, ok := addOK(math.MaxInt64, 1); ok {
		t.Errorf("addOK(MaxInt64, 1) ok")
	}
	if s, ok := addOK(math.MaxInt64, -1); !ok || s != math.MaxInt64-1 {
		t.Errorf("addOK(MaxInt64, -1) = %d, %v", s, ok)
	}
	if s, ok := addOK(math.MinInt64, -1); ok {
		t.Errorf("addOK(MinInt64, -1) = %d ok", s)
	}
}
