package sizeexpr

import "testing"

func iv(t *testing.T, lo, hi string) Interval {
	t.Helper()
	return Span(mustParse(t, lo), mustParse(t, hi))
}

func TestIntersect(t *testing.T) {
	tests := []struct {
		a, b  [2]string
		want  string
		empty bool
	}{
		{[2]string{"0", "N"}, [2]string{"1", "N + 1"}, "[1:N]", false},
		{[2]string{"0", "N"}, [2]string{"0", "M"}, "[0:min(N, M)]", false},
		{[2]string{"-3", "5"}, [2]string{"1", "9"}, "[1:5]", false},
		{[2]string{"0", "3"}, [2]string{"5", "8"}, "[5:3]", true},
		{[2]string{"0", "N"}, [2]string{"N", "N + 4"}, "[N:N]", true},
		{[2]string{"1", "N - 1"}, [2]string{"0", "N"}, "[1:N - 1]", false},
		{[2]string{"0", "min(N, M)"}, [2]string{"0", "N"}, "[0:min(N, M)]", false},
	}
	for _, tt := range tests {
		a, b := iv(t, tt.a[0], tt.a[1]), iv(t, tt.b[0], tt.b[1])
		got := a.Intersect(b)
		if got.String() != tt.want {
			t.Errorf("%v ∩ %v = %v, want %s", a, b, got, tt.want)
		}
		if !got.Equal(b.Intersect(a)) {
			t.Errorf("%v ∩ %v is not commutative", a, b)
		}
		if got.ProvablyEmpty() != tt.empty {
			t.Errorf("%v.ProvablyEmpty() = %v", got, !tt.empty)
		}
	}
}

func TestIntervalOps(t *testing.T) {
	a := iv(t, "0", "N")
	// tir.shift %x [I + 1]: y(i) = x(i + 1), so [0:N] becomes [-1:N - 1].
	if got := a.Shift(Const(1)).String(); got != "[-1:N - 1]" {
		t.Errorf("Shift(1) = %s", got)
	}
	if got := a.Translate(Const(2)).String(); got != "[2:N + 2]" {
		t.Errorf("Translate(2) = %s", got)
	}
	if got := iv(t, "1", "N - 1").Extent().String(); got != "N - 2" {
		t.Errorf("Extent = %s", got)
	}
	if !iv(t, "0", "N + 1").ProvablyNonEmpty() || iv(t, "0", "N").ProvablyNonEmpty() {
		t.Errorf("ProvablyNonEmpty")
	}
	if got := iv(t, "i", "i + 2").Subst(func(v Var) (Expr, bool) { return Const(3), v.Name == "i" }); got.String() != "[3:5]" {
		t.Errorf("Subst = %s", got)
	}
}

func TestContains(t *testing.T) {
	tests := []struct {
		outer, inner [2]string
		yes, decided bool
	}{
		{[2]string{"0", "N"}, [2]string{"1", "N - 1"}, true, true},
		{[2]string{"0", "N"}, [2]string{"0", "N"}, true, true},
		{[2]string{"0", "N"}, [2]string{"0", "N + 1"}, false, true},
		{[2]string{"0", "N"}, [2]string{"-1", "N"}, false, true},
		{[2]string{"0", "N"}, [2]string{"0", "M"}, false, false},
		{[2]string{"0", "N"}, [2]string{"0", "min(N, M)"}, true, true},
		{[2]string{"0", "N"}, [2]string{"i", "i + 1"}, false, false},
		{[2]string{"0", "5"}, [2]string{"1", "4"}, true, true},
	}
	for _, tt := range tests {
		o, in := iv(t, tt.outer[0], tt.outer[1]), iv(t, tt.inner[0], tt.inner[1])
		yes, decided := o.Contains(in)
		if yes != tt.yes || decided != tt.decided {
			t.Errorf("%v.Contains(%v) = %v, %v; want %v, %v", o, in, yes, decided, tt.yes, tt.decided)
		}
	}
}

// TestRangeInferenceForms: the bounds the TC range inference of spec 3
// builds, v ∈ [ceildiv(lo - bmin, a), floordiv(hi - 1 - bmax, a) + 1),
// print as the table in the spec shows.
func TestRangeInferenceForms(t *testing.T) {
	I := Sym("I", 0)
	hi := func(bmax int64) Expr {
		q, err := FloorDiv(Sub(Sub(I, Const(1)), Const(bmax)), 2)
		if err != nil {
			t.Fatal(err)
		}
		return Add(q, Const(1))
	}
	lo, err := CeilDiv(Const(0), 2)
	if err != nil {
		t.Fatal(err)
	}
	// A(i) = B(2*i)
	if got := Span(lo, hi(0)).String(); got != "[0:(I + 1) floordiv 2]" {
		t.Errorf("B(2*i): %s", got)
	}
	// A(i) = B(2*i) + B(2*i+1): the intersection of both accesses.
	if got := Span(lo, hi(0)).Intersect(Span(lo, hi(1))).String(); got != "[0:I floordiv 2]" {
		t.Errorf("B(2*i) + B(2*i+1): %s", got)
	}
}

// TestStencilDomains: x on [0:N] read at offsets -1, 0, +1 (spec 2.3
// tir.shift) gives the interior [1:N - 1].
func TestStencilDomains(t *testing.T) {
	x := Span(Const(0), N)
	got := x.Shift(Const(1)).Intersect(x).Intersect(x.Shift(Const(-1)))
	if got.String() != "[1:N - 1]" {
		t.Errorf("interior = %s", got)
	}
	if got.ProvablyEmpty() || got.ProvablyNonEmpty() {
		t.Errorf("[1:N - 1] emptiness must be undecided (N may be 0 or 5)")
	}
}
