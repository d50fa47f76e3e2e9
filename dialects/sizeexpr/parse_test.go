package sizeexpr

import "testing"

func TestParseErrors(t *testing.T) {
	for _, src := range []string{
		"", "N +", "(N", "N M", "X + 1", "N * M", "N floordiv M", "N mod 0",
		"min(N", "min()", "3 $ 4", "99999999999999999999",
	} {
		if e, err := Parse(src, lookupTest); err == nil {
			t.Errorf("Parse(%q) = %v, want an error", src, e)
		}
	}
}

func TestParsePrecedence(t *testing.T) {
	tests := []struct{ in, want string }{
		{"N + M * 2", "N + 2*M"},
		{"N - M - K", "N - M - K"},
		{"N - (M - K)", "N - M + K"},
		{"2 * 3 * N", "6*N"},
		{"N * 4 floordiv 2", "2*N"},
		{"N floordiv 2 * 2", "2*(N floordiv 2)"},
		{"--N", "N"},
		{"min (N, M)", "min(N, M)"},
	}
	for _, tt := range tests {
		if got := mustParse(t, tt.in).String(); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.in, got, tt.want)
		}
	}
}
