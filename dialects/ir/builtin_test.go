package ir

import "testing"

// TestBuiltinOps: every op registered under "builtin." has its value in
// BuiltinOps(), which lists the registered definitions themselves.
func TestBuiltinOps(t *testing.T) {
	listed := map[*OpDef]bool{}
	for _, d := range BuiltinOps() {
		if Dialect(d.Name) != "builtin" || LookupOp(d.Name) != d {
			t.Errorf("%s in BuiltinOps() is not a registered builtin op", d.Name)
		}
		listed[d] = true
	}
	for _, d := range RegisteredOps() {
		if Dialect(d.Name) == "builtin" && !listed[d] {
			t.Errorf("%s is registered but has no value in BuiltinOps(): give it one", d.Name)
		}
	}
}
