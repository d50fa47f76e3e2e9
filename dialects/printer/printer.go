// Package printer writes IR as text: the custom form of every registered op
// (through its Print hook), or MLIR's generic form on request. Value names
// are assigned at print time, so output is deterministic: names from the
// input are kept when unique in their scope, other values are numbered.
package printer

import (
	"sort"
	"strconv"
	"strings"

	"tir/dialects/ir"
)

// Options control printing.
type Options struct {
	// Generic prints every op in MLIR's generic form.
	Generic bool
	// NoAliases prints types in full instead of using !alias names.
	NoAliases bool
}

// Module prints a whole module.
func Module(m *ir.Module, opts Options) string {
	p := newPrinter(opts)
	if !opts.NoAliases && !opts.Generic {
		for _, a := range m.TypeAliases {
			s := a.Type.String()
			if _, dup := p.aliasOf[s]; !dup {
				p.aliasOf[s] = a.Name
			}
		}
	}
	var body strings.Builder
	p.out = &body
	if m.Implicit && len(m.Op.Attrs) == 0 {
		for i, op := range m.Body().Ops {
			if i > 0 {
				p.w("\n")
			}
			p.topLevel(op)
			p.w("\n")
		}
	} else {
		p.topLevel(m.Op)
		p.w("\n")
	}
	// Re-emit the aliases the body used, in declaration order.
	var head strings.Builder
	for _, a := range m.TypeAliases {
		if p.usedAlias[a.Name] {
			head.WriteString("!" + a.Name + " = " + a.Type.String() + "\n")
			p.usedAlias[a.Name] = false
		}
	}
	if head.Len() > 0 {
		head.WriteString("\n")
	}
	return head.String() + body.String()
}

// Op prints a single operation (with its regions) for debugging and
// diagnostics.
func Op(op *ir.Operation, opts Options) string {
	p := newPrinter(opts)
	var b strings.Builder
	p.out = &b
	p.topLevel(op)
	return b.String()
}

type printer struct {
	opts      Options
	out       *strings.Builder
	indent    int
	names     map[*ir.Value]string
	scopes    []map[string]bool
	next      int
	aliasOf   map[string]string
	usedAlias map[string]bool
	blockIDs  map[*ir.Block]int
}

func newPrinter(opts Options) *printer {
	return &printer{opts: opts, names: map[*ir.Value]string{}, aliasOf: map[string]string{}, usedAlias: map[string]bool{}, blockIDs: map[*ir.Block]int{}}
}

func (p *printer) topLevel(op *ir.Operation) {
	p.names = map[*ir.Value]string{}
	p.scopes = []map[string]bool{{}}
	p.next = 0
	p.op(op)
}

func (p *printer) w(s string) { p.out.WriteString(s) }

func (p *printer) nl() {
	p.w("\n")
	p.w(strings.Repeat("  ", p.indent))
}

func (p *printer) taken(n string) bool {
	for _, s := range p.scopes {
		if s[n] {
			return true
		}
	}
	return false
}

// name assigns the value its printed name in the innermost scope.
func (p *printer) name(v *ir.Value) string {
	if n, ok := p.names[v]; ok {
		return n
	}
	var n string
	if h := v.NameHint; h != "" && !isNumber(h) {
		n = h
		for i := 0; p.taken(n); i++ {
			n = h + "_" + strconv.Itoa(i)
		}
	} else {
		for {
			n = strconv.Itoa(p.next)
			p.next++
			if !p.taken(n) {
				break
			}
		}
	}
	p.scopes[len(p.scopes)-1][n] = true
	p.names[v] = n
	return n
}

func isNumber(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

func (p *printer) op(op *ir.Operation) {
	if len(op.Results) > 0 {
		p.results(op)
		p.w(" = ")
	}
	// An isolated op (a function, a module) names its values afresh, as
	// MLIR does: numbering restarts at %0 and names of the enclosing
	// regions may be reused, since nothing inside can refer to them. This
	// also covers the values the op declares in its own syntax before its
	// region opens (a function's parameters), which would otherwise collide
	// with those of an earlier sibling (@f(%a) then @g(%a) in one module).
	if op.HasTrait(ir.TraitIsolated) {
		scopes, next := p.scopes, p.next
		p.scopes, p.next = []map[string]bool{{}}, 0
		defer func() { p.scopes, p.next = scopes, next }()
	}
	if !p.opts.Generic && op.Def != nil && op.Def.Print != nil && (op.Def.NeedsGeneric == nil || !op.Def.NeedsGeneric(op)) {
		if op.Def.PrintName != "" {
			p.w(op.Def.PrintName)
		} else {
			p.w(op.Name)
		}
		op.Def.Print(p, op)
		return
	}
	p.generic(op)
}

func (p *printer) results(op *ir.Operation) {
	// Results of a multi-result op share one name: %r:2.
	if len(op.Results) > 1 && p.groupable(op) {
		base := p.name(op.Results[0])
		p.names[op.Results[0]] = base + "#0" // uses name the pack element
		for i, r := range op.Results[1:] {
			p.names[r] = base + "#" + strconv.Itoa(i+1)
		}
		p.w("%" + base + ":" + strconv.Itoa(len(op.Results)))
		return
	}
	for i, r := range op.Results {
		if i > 0 {
			p.w(", ")
		}
		p.w("%" + p.name(r))
	}
}

// groupable: results print as %r:N unless they carry distinct name hints.
func (p *printer) groupable(op *ir.Operation) bool {
	for _, r := range op.Results[1:] {
		if r.NameHint != "" && !isNumber(r.NameHint) {
			return false
		}
	}
	return true
}

func (p *printer) generic(op *ir.Operation) {
	p.w(ir.QuoteString(op.Name) + "(")
	p.Values(op.Operands)
	p.w(")")
	if len(op.Successors) > 0 {
		p.w("[")
		for i, s := range op.Successors {
			if i > 0 {
				p.w(", ")
			}
			p.w(ir.BlockLabel(s))
		}
		p.w("]")
	}
	if len(op.Regions) > 0 {
		p.w(" (")
		for i, r := range op.Regions {
			if i > 0 {
				p.w(", ")
			}
			p.Region(r, true)
		}
		p.w(")")
	}
	if len(op.Attrs) > 0 {
		p.w(" ")
		p.Attr(op.Attrs)
	}
	p.w(" : (")
	var ins []ir.Type
	for _, v := range op.Operands {
		ins = append(ins, v.Type)
	}
	p.Types(ins)
	p.w(") -> ")
	var outs []ir.Type
	for _, r := range op.Results {
		outs = append(outs, r.Type)
	}
	if len(outs) == 1 {
		if _, fn := outs[0].(ir.FunctionType); !fn {
			p.Type(outs[0])
			return
		}
	}
	p.w("(")
	p.Types(outs)
	p.w(")")
}

// Write implements ir.OpPrinter.
func (p *printer) Write(s string) { p.w(s) }

// Value implements ir.OpPrinter.
func (p *printer) Value(v *ir.Value) {
	if v == nil {
		p.w("%<<null>>")
		return
	}
	p.w("%" + p.name(v))
}

// Values implements ir.OpPrinter.
func (p *printer) Values(vs []*ir.Value) {
	for i, v := range vs {
		if i > 0 {
			p.w(", ")
		}
		p.Value(v)
	}
}

// ArgDef implements ir.OpPrinter.
func (p *printer) ArgDef(v *ir.Value) {
	p.Value(v)
	p.w(": ")
	p.Type(v.Type)
}

// ArgName implements ir.OpPrinter.
func (p *printer) ArgName(v *ir.Value) { p.Value(v) }

// Type implements ir.OpPrinter.
func (p *printer) Type(t ir.Type) {
	if t == nil {
		p.w("<<null type>>")
		return
	}
	s := t.String()
	if a, ok := p.aliasOf[s]; ok {
		p.usedAlias[a] = true
		p.w("!" + a)
		return
	}
	p.w(s)
}

// Types implements ir.OpPrinter.
func (p *printer) Types(ts []ir.Type) {
	for i, t := range ts {
		if i > 0 {
			p.w(", ")
		}
		p.Type(t)
	}
}

// Attr implements ir.OpPrinter.
func (p *printer) Attr(a ir.Attribute) {
	switch a := a.(type) {
	case ir.TypeAttr:
		p.Type(a.Type)
	case ir.DictAttr:
		p.w("{")
		for i, e := range a {
			if i > 0 {
				p.w(", ")
			}
			p.w(dictKey(e.Name))
			if _, unit := e.Value.(ir.UnitAttr); !unit {
				p.w(" = ")
				p.Attr(e.Value)
			}
		}
		p.w("}")
	case ir.ArrayAttr:
		p.w("[")
		for i, e := range a {
			if i > 0 {
				p.w(", ")
			}
			p.Attr(e)
		}
		p.w("]")
	default:
		p.w(a.String())
	}
}

func dictKey(s string) string {
	d := ir.DictAttr{{Name: s, Value: ir.UnitAttr{}}}.String()
	return d[1 : len(d)-1]
}

// AttrDict implements ir.OpPrinter.
func (p *printer) AttrDict(d ir.DictAttr, elide ...string) {
	var rest ir.DictAttr
	for _, e := range d {
		skip := false
		for _, n := range elide {
			if e.Name == n {
				skip = true
			}
		}
		if !skip {
			rest = append(rest, e)
		}
	}
	if len(rest) == 0 {
		return
	}
	sort.SliceStable(rest, func(i, j int) bool { return rest[i].Name < rest[j].Name })
	p.w(" attributes ")
	p.Attr(rest)
}

// Region implements ir.OpPrinter.
func (p *printer) Region(r *ir.Region, printEntryArgs bool) { p.region(r, printEntryArgs, true) }

// RegionWithoutTerminators implements ir.TerminatorElider: the last op of
// each block is left out when it is a terminator.
func (p *printer) RegionWithoutTerminators(r *ir.Region, printEntryArgs bool) {
	p.region(r, printEntryArgs, false)
}

func (p *printer) region(r *ir.Region, printEntryArgs, printTerminators bool) {
	p.scopes = append(p.scopes, map[string]bool{})
	defer func() { p.scopes = p.scopes[:len(p.scopes)-1] }()
	p.w("{")
	p.indent++
	for i, b := range r.Blocks {
		// An empty entry block keeps its label: `{ }` alone is a region
		// without blocks.
		emptyEntry := i == 0 && printEntryArgs && len(b.Args) == 0 && len(b.Ops) == 0
		if i > 0 || (printEntryArgs && len(b.Args) > 0) || emptyEntry {
			p.indent--
			p.nl()
			p.w("^bb" + strconv.Itoa(i))
			if len(b.Args) > 0 {
				p.w("(")
				for j, a := range b.Args {
					if j > 0 {
						p.w(", ")
					}
					p.ArgDef(a)
				}
				p.w(")")
			}
			p.w(":")
			p.indent++
		} else {
			// Arguments the op's own syntax declared still need names.
			for _, a := range b.Args {
				p.name(a)
			}
		}
		ops := b.Ops
		if !printTerminators && b.Terminator() != nil {
			ops = ops[:len(ops)-1]
		}
		for _, op := range ops {
			p.nl()
			p.op(op)
		}
	}
	p.indent--
	p.nl()
	p.w("}")
}
