package ir

// UseLists maps each value used inside a root op to the ops that use it
// (each op once, in walk order). Passes that ask for the users of many
// values build it once: Users walks the whole root per question, which
// made them quadratic in the size of a function.
type UseLists map[*Value][]*Operation

// UsesIn walks root once and records every use.
func UsesIn(root *Operation) UseLists {
	u := UseLists{}
	root.Walk(func(o *Operation) bool {
		for i, v := range o.Operands {
			seen := false
			for _, w := range o.Operands[:i] {
				if w == v {
					seen = true
					break
				}
			}
			if !seen {
				u[v] = append(u[v], o)
			}
		}
		return true
	})
	return u
}

// Users returns the ops that use v.
func (u UseLists) Users(v *Value) []*Operation { return u[v] }
