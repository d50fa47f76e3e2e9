package passes

import (
	"fmt"
	"strings"

	"tir/dialects/ir"
)

// cse: common subexpression elimination. A pure op without regions that
// repeats an earlier op (same name, operands, attributes and result types)
// visible from it (earlier in its block or in an enclosing block, never
// across an isolated op such as a function) is replaced by that op.
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
		c.block(b, &cseScope{parent: parent, known: map[string]*ir.Operation{}})
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
