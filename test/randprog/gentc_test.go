package randprog

import (
	"strings"
	"testing"
)

// Every generated TC program imports, reads through a gather and runs in
// the interpreter (the generator must only write valid TC), and most have
// masked points in their results.
func TestGenerateTCPrograms(t *testing.T) {
	masked := 0
	for seed := int64(1); seed <= 300; seed++ {
		p := GenerateTC(seed)
		c, err := NewCase(p)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, p.Text)
		}
		if c.WantErr != "" {
			t.Fatalf("seed %d: the interpreter fails: %s\n%s", seed, c.WantErr, p.Text)
		}
		if !strings.Contains(p.Text, "tir.gather") {
			t.Fatalf("seed %d: no gather\n%s", seed, p.Text)
		}
		n := 0
		for _, w := range c.Want {
			n += w.MaskedCount()
		}
		if n > 0 {
			masked++
		}
	}
	// The point is to reach results with masked points: most programs do.
	if masked < 150 {
		t.Errorf("%d of 300 programs have a masked point in a result, want most", masked)
	}
}
