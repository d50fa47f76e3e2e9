package passes

import (
	"fmt"
	"sort"
	"strings"

	"tir/dialects/ir"
)

// Pattern is a rewrite rooted at ops named Root ("" matches every op).
// Apply must not change IR unless it matched; when it matches it changes IR
// only through rw and returns true.
type Pattern struct {
	Name  string
	Root  string
	Apply func(op *ir.Operation, rw *ir.Rewriter) bool
}

var canonPatterns []Pattern

// RegisterCanonicalization adds a pattern to those canonicalize applies.
// Packages above the dialects (lower/, ...) call it from init; dialects
// themselves simplify through ir.OpDef.Fold.
func RegisterCanonicalization(p Pattern) {
	if p.Apply == nil || p.Name == "" {
		panic("passes: canonicalization pattern without a name or an Apply function")
	}
	canonPatterns = append(canonPatterns, p)
}

// CanonicalizationPatterns returns the registered canonicalization patterns.
func CanonicalizationPatterns() []Pattern { return append([]Pattern(nil), canonPatterns...) }

// DefaultMaxIterations is the greedy driver's default cap on sweeps.
const DefaultMaxIterations = 10

// GreedyConfig configures ApplyPatternsGreedily.
type GreedyConfig struct {
	// MaxIterations caps the number of sweeps (0: DefaultMaxIterations).
	MaxIterations int
	// Fold tries each op's OpDef.Fold before the patterns.
	Fold bool
	// RemoveDead erases pure ops whose results are unused.
	RemoveDead bool
}

// ConvergenceError reports that rewriting still changed IR after the
// iteration cap.
type ConvergenceError struct {
	Iterations int
	// Still lists what applied during the last sweep (patterns, "fold of
	// X", "dead-code removal").
	Still []string
}

func (e *ConvergenceError) Error() string {
	return fmt.Sprintf("rewriting did not converge after %d iterations (still applying: %s)", e.Iterations, strings.Join(e.Still, ", "))
}

// ApplyPatternsGreedily rewrites the ops nested in root (not root itself)
// to a fixed point: each sweep removes dead pure ops, then visits every op
// in pre-order and applies its fold, then the first matching pattern. It
// stops after a sweep that changes nothing; it returns a
// *ConvergenceError if the last allowed sweep still changed something.
func ApplyPatternsGreedily(root *ir.Operation, patterns []Pattern, cfg GreedyConfig) (changed bool, err error) {
	max := cfg.MaxIterations
	if max <= 0 {
		max = DefaultMaxIterations
	}
	byRoot := map[string][]Pattern{}
	for _, p := range patterns {
		byRoot[p.Root] = append(byRoot[p.Root], p)
	}
	for iter := 1; iter <= max; iter++ {
		applied := map[string]bool{}
		rw := &ir.Rewriter{Root: root}
		if cfg.RemoveDead && removeDeadOps(root, rw) {
			applied["dead-code removal"] = true
		}
		for _, op := range collectOps(root) {
			if !attached(op, root) {
				continue
			}
			if cfg.Fold && op.Def != nil && op.Def.Fold != nil && op.Def.Fold(op, rw) {
				applied["fold of "+op.Name] = true
				rw.Changed = true
				continue
			}
		patterns:
			for _, l := range [][]Pattern{byRoot[op.Name], byRoot[""]} {
				for _, p := range l {
					if p.Apply(op, rw) {
						applied[p.Name] = true
						rw.Changed = true
						break patterns
					}
				}
			}
		}
		if !rw.Changed && len(applied) == 0 {
			return changed, nil
		}
		changed = true
		if iter == max {
			var still []string
			for k := range applied {
				still = append(still, k)
			}
			sort.Strings(still)
			return changed, &ConvergenceError{Iterations: max, Still: still}
		}
	}
	return changed, nil
}

// collectOps lists the ops nested in root, pre-order, root excluded.
func collectOps(root *ir.Operation) []*ir.Operation {
	var out []*ir.Operation
	root.Walk(func(o *ir.Operation) bool {
		if o != root {
			out = append(out, o)
		}
		return true
	})
	return out
}

// attached reports whether op is still (transitively) inside root.
func attached(op, root *ir.Operation) bool {
	for p := op; p != root; {
		b := p.ParentBlock()
		if b == nil {
			return false
		}
		p = b.ParentOp()
		if p == nil {
			return false
		}
	}
	return true
}

// IsTriviallyDead reports whether op is pure, not a terminator, and none of
// its results is in uses.
func IsTriviallyDead(op *ir.Operation, uses map[*ir.Value]int) bool {
	if !op.HasTrait(ir.TraitPure) || op.HasTrait(ir.TraitTerminator) {
		return false
	}
	for _, r := range op.Results {
		if uses[r] > 0 {
			return false
		}
	}
	return true
}

// useCounts counts the uses of every value inside root.
func useCounts(root *ir.Operation) map[*ir.Value]int {
	uses := map[*ir.Value]int{}
	root.Walk(func(o *ir.Operation) bool {
		for _, v := range o.Operands {
			uses[v]++
		}
		return true
	})
	return uses
}

// removeDeadOps erases dead pure ops under root in one backwards sweep
// (users before their operands, so chains go at once).
func removeDeadOps(root *ir.Operation, rw *ir.Rewriter) bool {
	uses := useCounts(root)
	ops := collectOps(root)
	removed := false
	for i := len(ops) - 1; i >= 0; i-- {
		op := ops[i]
		if !attached(op, root) || !IsTriviallyDead(op, uses) {
			continue
		}
		op.Walk(func(o *ir.Operation) bool {
			for _, v := range o.Operands {
				uses[v]--
			}
			return true
		})
		rw.EraseOp(op)
		removed = true
	}
	return removed
}
