package passes

import (
	"fmt"
	"strings"

	"tir/dialects/ir"
)

// cse: common subexpression elimination. A pure op without regions that
// repeats an earlier op (same name, operands, attributes and result types)
// visible from it (earlier in its block or in an enclosing block, never
// across an isolated op such as a function) is replaced by that op. A load
// (ir.TraitReadOnly) is replaced by an equal load earlier in the same block
// when no op between them may write memory, as MLIR 16's cse does (which
// also stops at any loop or branch between them; here one whose regions
// only read does not stop it): two gathers through one table at one point
// each reload the neighbour's fields otherwise.
func init() {
	Register(&Def{
		Name:    "cse",
		Title:   "CSE",
		Summary: "Eliminate common subexpressions (pure ops with equal operands, attributes and types)",
		Anchor:  AnchorAny,
		New: func(Options) Pass {
			return PassFunc(func(op *ir.Operation, ctx *Context) error {
				CSE(op)
				return nil
			})
		},
	})
}

// CSE eliminates common subexpressions inside op's regions and reports
// whether it changed anything.
func CSE(op *ir.Operation) bool {
	c := &cse{repl: map[*ir.Value]*ir.Value{}}
	for _, r := range op.Regions {
		c.region(r, nil)
	}
	return c.changed
}

type cseScope struct {
	parent *cseScope
	known  map[string]*ir.Operation
	// loads are the block's loads by key, with the number of ops that may
	// write seen in the block before each (writes).
	loads  map[string]seenLoad
	writes int
}

type seenLoad struct {
	op     *ir.Operation
	writes int
}

func (s *cseScope) lookup(k string) *ir.Operation {
	for ; s != nil; s = s.parent {
		if op, ok := s.known[k]; ok {
			return op
		}
	}
	return nil
}

type cse struct {
	repl    map[*ir.Value]*ir.Value
	changed bool
}

func (c *cse) region(r *ir.Region, parent *cseScope) {
	for _, b := range r.Blocks {
		c.block(b, &cseScope{parent: parent, known: map[string]*ir.Operation{}, loads: map[string]seenLoad{}})
	}
}

func (c *cse) block(b *ir.Block, s *cseScope) {
	for _, op := range append([]*ir.Operation(nil), b.Ops...) {
		// Uses come after their definition in this walk, so replacing
		// operands as ops are reached updates every use.
		for i, v := range op.Operands {
			if r, ok := c.repl[v]; ok {
				op.Operands[i] = r
			}
		}
		if cseCandidate(op) {
			k := cseKey(op)
			if prev := s.lookup(k); prev != nil {
				for i, r := range op.Results {
					c.repl[r] = prev.Results[i]
				}
				op.Erase()
				c.changed = true
				continue
			}
			s.known[k] = op
		} else if loadCandidate(op) {
			k := cseKey(op)
			if prev, ok := s.loads[k]; ok && prev.writes == s.writes {
				for i, r := range op.Results {
					c.repl[r] = prev.op.Results[i]
				}
				op.Erase()
				c.changed = true
				continue
			}
			s.loads[k] = seenLoad{op, s.writes}
		} else if MayWrite(op) {
			s.writes++
		}
		for _, r := range op.Regions {
			if op.HasTrait(ir.TraitIsolated) {
				c.region(r, nil)
			} else {
				c.region(r, s)
			}
		}
	}
}

func cseCandidate(op *ir.Operation) bool {
	return op.Def != nil && op.HasTrait(ir.TraitPure) && !op.HasTrait(ir.TraitTerminator) && len(op.Regions) == 0
}

func loadCandidate(op *ir.Operation) bool {
	return op.Def != nil && op.HasTrait(ir.TraitReadOnly) && len(op.Regions) == 0
}

// MayWrite reports whether op, or an op nested in it, may write memory:
// any op that is neither pure nor read-only, counting an op with regions
// (a loop, a branch) by what its regions hold.
func MayWrite(op *ir.Operation) bool {
	if len(op.Regions) == 0 || op.HasTrait(ir.TraitIsolated) {
		return !(op.HasTrait(ir.TraitPure) || op.HasTrait(ir.TraitReadOnly) || op.HasTrait(ir.TraitTerminator))
	}
	for _, r := range op.Regions {
		for _, b := range r.Blocks {
			for _, o := range b.Ops {
				if MayWrite(o) {
					return true
				}
			}
		}
	}
	return false
}

func cseKey(op *ir.Operation) string {
	var b strings.Builder
	b.WriteString(op.Name)
	b.WriteByte('(')
	for _, v := range op.Operands {
		fmt.Fprintf(&b, "%p,", v)
	}
	b.WriteString(")")
	b.WriteString(op.Attrs.String())
	b.WriteString("->")
	for _, r := range op.Results {
		b.WriteString(r.Type.String())
		b.WriteByte(',')
	}
	return b.String()
}
