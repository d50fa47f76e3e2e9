package passes

import (
	"fmt"

	"tir/dialects/ir"
)

// canonicalize: folds (ir.OpDef.Fold), registered canonicalization
// patterns and dead pure op removal, run to a fixed point by the greedy
// driver.
func init() {
	Register(&Def{
		Name:    "canonicalize",
		Title:   "Canonicalizer",
		Summary: "Fold ops, apply canonicalization patterns and remove dead pure ops, to a fixed point",
		Anchor:  AnchorAny,
		Options: []OptionSpec{
			{Name: "max-iterations", Type: OptInt, Default: DefaultMaxIterations, Help: "cap on rewrite sweeps; still changing after it is an error"},
		},
		Check: func(o Options) error {
			if o.Int("max-iterations") < 1 {
				return fmt.Errorf("max-iterations must be at least 1")
			}
			return nil
		},
		New: func(o Options) Pass {
			maxIter := o.Int("max-iterations")
			return PassFunc(func(op *ir.Operation, ctx *Context) error {
				_, err := ApplyPatternsGreedily(op, CanonicalizationPatterns(), GreedyConfig{MaxIterations: maxIter, Fold: true, RemoveDead: true})
				if err != nil {
					return ir.Errorf(op.Loc, "canonicalize: %v", err)
				}
				return nil
			})
		},
	})
}
