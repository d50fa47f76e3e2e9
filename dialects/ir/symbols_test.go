package ir

import "testing"

func TestSymbolRefs(t *testing.T) {
	cases := []struct {
		attr Attribute
		want string
		path []string
	}{
		{SymbolRefAttr("f"), "@f", []string{"f"}},
		{NestedSymbolRefAttr{Root: "m", Nested: []string{"k"}}, "@m::@k", []string{"m", "k"}},
		{NestedSymbolRefAttr{Root: "a b", Nested: []string{"c::d", "_e.1$"}}, `@"a b"::@"c::d"::@_e.1$`, []string{"a b", "c::d", "_e.1$"}},
		{NestedSymbolRefAttr{Root: "0x"}, `@"0x"`, []string{"0x"}},
		{SymbolRef("m", "k"), "@m::@k", []string{"m", "k"}},
		{SymbolRef("f"), "@f", []string{"f"}},
	}
	for _, c := range cases {
		if got := c.attr.String(); got != c.want {
			t.Errorf("%#v prints %s, want %s", c.attr, got, c.want)
		}
		path, ok := SymbolPath(c.attr)
		if !ok || len(path) != len(c.path) {
			t.Errorf("SymbolPath(%s) = %v, %v", c.want, path, ok)
			continue
		}
		for i := range path {
			if path[i] != c.path[i] {
				t.Errorf("SymbolPath(%s) = %v, want %v", c.want, path, c.path)
			}
		}
	}
	if _, ok := SymbolRef("f").(SymbolRefAttr); !ok {
		t.Error("a one-name reference must be a SymbolRefAttr")
	}
	if !AttrEqual(NestedSymbolRefAttr{Root: "f"}, SymbolRefAttr("f")) {
		t.Error("@f nested without nested names must equal the flat @f")
	}
	if _, ok := SymbolPath(StringAttr("f")); ok {
		t.Error("a string is not a symbol reference")
	}
}
