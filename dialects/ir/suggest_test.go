package ir

import "testing"

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"shift", "shift", 0},
		{"shfit", "shift", 1}, // adjacent swap
		{"shif", "shift", 1},
		{"shiftt", "shift", 1},
		{"sheft", "shift", 1},
		{"", "abc", 3},
		{"abc", "xyz", 3},
	} {
		if got := EditDistance(c.a, c.b); got != c.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestClosestOp(t *testing.T) {
	Register(&OpDef{Name: "zzsuggest.shift"}, &OpDef{Name: "zzsuggest.add"}, &OpDef{Name: "zzsuggest.select"})
	defer func() {
		for _, n := range []string{"zzsuggest.shift", "zzsuggest.add", "zzsuggest.select"} {
			delete(registry, n)
		}
	}()
	for name, want := range map[string]string{
		"zzsuggest.shfit":    "zzsuggest.shift",
		"zzsuggest.ad":       "zzsuggest.add",
		"zzsuggest.selcet":   "zzsuggest.select",
		"zzsuggest.multiply": "",
		"zzsuggest.frob":     "",
	} {
		if got := ClosestOp(name); got != want {
			t.Errorf("ClosestOp(%q) = %q, want %q", name, got, want)
		}
	}
}
