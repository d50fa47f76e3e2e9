package tc

import (
	"fmt"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// Where the range of an index variable comes from, for the notes of a
// range-inference error: its where clause, or the accesses that solved it
// (and, through their other variables, what solved those, round by round).

// rangeWhy is one reason for a variable's range.
type rangeWhy struct {
	loc  ir.Location
	text string
	// deps are the resolved variables the reason used (i + k solved i
	// with k's range).
	deps []string
	// iv is the candidate range this reason gives.
	iv sizeexpr.Interval
	// acc and arg are the access argument that gave it (acc is nil for a
	// where clause), so that a narrowed range can name what narrowed it.
	acc *access
	arg int
}

// maxRangeNotes caps the notes one explanation adds.
const maxRangeNotes = 8

// boundsFixed says which bounds of the final range r a candidate iv
// fixes: "the lower bound", "the upper bound", "both bounds", or "".
func boundsFixed(iv, r sizeexpr.Interval) string {
	lo := sizeexpr.ProveEQ(iv.Lo, r.Lo)
	hi := sizeexpr.ProveEQ(iv.Hi, r.Hi)
	switch {
	case lo && hi:
		return "both bounds"
	case lo:
		return "the lower bound"
	case hi:
		return "the upper bound"
	}
	return ""
}

// explainVars adds to d, for each variable of vars, where its final
// range in rs comes from, then the same for the variables those reasons
// used, breadth first, each variable once, at most maxRangeNotes notes.
func explainVars(d *ir.Diagnostic, why map[string][]rangeWhy, rs ranges, vars []string) {
	seen := map[string]bool{}
	queue := append([]string(nil), vars...)
	notes := 0
	for len(queue) > 0 && notes < maxRangeNotes {
		v := queue[0]
		queue = queue[1:]
		if seen[v] {
			continue
		}
		seen[v] = true
		for _, w := range why[v] {
			if notes == maxRangeNotes {
				break
			}
			text := w.text
			if r, ok := rs[v]; ok && len(why[v]) > 1 {
				if b := boundsFixed(w.iv, r); b != "" {
					text += fmt.Sprintf(" (it fixes %s of '%s' in %s)", b, v, r)
				}
			}
			d.AddNote(w.loc, "%s", text)
			notes++
			queue = append(queue, w.deps...)
		}
	}
}

// resolvedVars lists the index variables of an affine form that have a
// range, except skip.
func resolvedVars(e sizeexpr.Expr, rs ranges, skip string) []string {
	var out []string
	for _, v := range e.Vars() {
		if v.Kind != sizeexpr.DimVar || v.Name == skip {
			continue
		}
		if _, ok := rs[v.Name]; ok {
			out = append(out, v.Name)
		}
	}
	return out
}
