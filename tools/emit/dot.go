package emit

import (
	"fmt"
	"strconv"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/tir"
)

// Dot prints the dataflow graph of every tir.func of the module in
// Graphviz's DOT language: one digraph, one cluster per function, one node
// per value (its name, the op that defines it with its attributes, its
// element type and domain), an edge from each operand to its user labelled
// with the operand number where the order matters. Arguments are blue
// inverted houses, results green houses carrying the declared output
// domains, and the body of a reduce or scan is a nested cluster whose
// yielded value flows back into the op (a dashed edge).
func Dot(m *ir.Module) (string, error) {
	fns, err := tirFuncs(m)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("digraph tir {\n")
	b.WriteString("  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n")
	b.WriteString("  edge [fontname=\"Helvetica\", fontsize=9];\n")
	for i, fn := range fns {
		sig, err := readSignature(fn)
		if err != nil {
			return "", err
		}
		g := &dotGraph{b: &b, prefix: fmt.Sprintf("f%d_", i), ids: map[*ir.Value]string{}, names: map[*ir.Value]string{}, scopes: []map[string]bool{{}}}
		g.function(sig)
	}
	b.WriteString("}\n")
	return b.String(), nil
}

// dotGraph writes one function's cluster. Node ids are f<function>_<n>;
// value names follow the IR printer's rule (the input's name when unique,
// else a number) so labels match what tc-opt prints.
type dotGraph struct {
	b       *strings.Builder
	prefix  string
	next    int
	ids     map[*ir.Value]string
	names   map[*ir.Value]string
	scopes  []map[string]bool // names taken, innermost region last
	nextNum int
	indent  string
}

func (g *dotGraph) id(v *ir.Value) string {
	if id, ok := g.ids[v]; ok {
		return id
	}
	id := g.prefix + strconv.Itoa(g.next)
	g.next++
	g.ids[v] = id
	return id
}

func (g *dotGraph) name(v *ir.Value) string {
	if n, ok := g.names[v]; ok {
		return n
	}
	n := v.NameHint
	if _, err := strconv.Atoi(n); n == "" || err == nil {
		for {
			n = strconv.Itoa(g.nextNum)
			g.nextNum++
			if !g.taken(n) {
				break
			}
		}
	} else {
		for i, h := 0, n; g.taken(n); i++ {
			n = h + "_" + strconv.Itoa(i)
		}
	}
	g.scopes[len(g.scopes)-1][n] = true
	g.names[v] = "%" + n
	return g.names[v]
}

func (g *dotGraph) taken(n string) bool {
	for _, s := range g.scopes {
		if s[n] {
			return true
		}
	}
	return false
}

func (g *dotGraph) line(format string, args ...any) {
	g.b.WriteString(g.indent + fmt.Sprintf(format, args...) + "\n")
}

func (g *dotGraph) function(sig *signature) {
	g.indent = "  "
	g.line("subgraph cluster_%s {", strings.TrimSuffix(g.prefix, "_"))
	g.indent = "    "
	g.line("label=%s;", dotQuote("@"+sig.name))
	g.line("fontname=\"Helvetica\";")
	for i, a := range sig.args {
		g.line("%s [shape=invhouse, style=filled, fillcolor=\"#cfe2f3\", label=%s];", g.id(a),
			dotQuote(g.name(a)+"\nargument #"+strconv.Itoa(i)+"\n"+typeText(a.Type)))
	}
	entry := sig.fn.Regions[0].Entry()
	g.block(entry)
	if ret := entry.Terminator(); ret.Is(tir.Return) {
		for i, v := range ret.Operands {
			rid := g.prefix + "r" + strconv.Itoa(i)
			label := "result #" + strconv.Itoa(i)
			if i < len(sig.outs) {
				label += "\n" + typeText(sig.outs[i])
			}
			g.line("%s [shape=house, style=filled, fillcolor=\"#d9ead3\", label=%s];", rid, dotQuote(label))
			g.line("%s -> %s;", g.id(v), rid)
		}
	}
	g.indent = "  "
	g.line("}")
}

// block writes the nodes of a block's ops and the edges into them.
func (g *dotGraph) block(blk *ir.Block) {
	for _, op := range blk.Ops {
		if op.Is(tir.Return, tir.Yield) {
			continue
		}
		for _, r := range op.Results {
			label := g.name(r) + " = " + op.Name
			if d := g.detail(op); d != "" {
				label += " " + d
			}
			g.line("%s [label=%s];", g.id(r), dotQuote(label+"\n"+typeText(r.Type)))
		}
		if len(op.Results) == 0 {
			continue
		}
		self := g.id(op.Results[0])
		// Edges say how the result reads each operand (its access rule):
		// "I+1" for a shift, "Vertex=table" for a gather, "over K" for a
		// reduction; nothing for a read at the same point.
		how := map[int]string{}
		acc, _ := tir.AccessOf(op)
		for _, r := range acc {
			how[r.Operand] = r.Describe()
			if r.Gathered != "" {
				how[r.Table] = "table"
			}
		}
		for i, v := range op.Operands {
			var label []string
			if len(op.Operands) > 1 {
				label = append(label, strconv.Itoa(i))
			}
			if d := how[i]; d != "" {
				label = append(label, d)
			}
			if len(label) > 0 {
				g.line("%s -> %s [label=%s];", g.id(v), self, dotQuote(strings.Join(label, ": ")))
			} else {
				g.line("%s -> %s;", g.id(v), self)
			}
		}
		for k, r := range op.Regions {
			g.region(op, k, r, self)
		}
	}
}

// region writes the body of a reduce or scan as a nested cluster: its
// block arguments (the state, then one per operand without the reduced or
// scanned dimensions), its ops, and a dashed edge from the yielded value
// back to the op.
func (g *dotGraph) region(op *ir.Operation, k int, r *ir.Region, self string) {
	blk := r.Entry()
	if blk == nil {
		return
	}
	outer := g.indent
	g.line("subgraph cluster_%s_body%d {", self, k)
	g.indent += "  "
	g.line("label=%s;", dotQuote("body of "+g.name(op.Results[0])))
	g.line("style=dashed;")
	g.scopes = append(g.scopes, map[string]bool{})
	for i, a := range blk.Args {
		role := "state"
		if op.Is(tir.Reduce) && i == 0 {
			role = "accumulator"
		} else if i > 0 {
			role = "element of operand #" + strconv.Itoa(i)
		}
		g.line("%s [shape=ellipse, label=%s];", g.id(a), dotQuote(g.name(a)+"\n"+role+"\n"+typeText(a.Type)))
	}
	g.block(blk)
	g.scopes = g.scopes[:len(g.scopes)-1]
	g.indent = outer
	g.line("}")
	if y := blk.Terminator(); y.Is(tir.Yield) {
		for _, v := range y.Operands {
			g.line("%s -> %s [style=dashed, label=\"yield\"];", g.id(v), self)
		}
	}
}

// detail is the part of an op's custom syntax that is neither operands nor
// result type: what distinguishes two shifts or two reductions (the op's
// Detail facet).
func (g *dotGraph) detail(op *ir.Operation) string {
	if o := tir.OpOf(op); o != nil && o.Detail != nil {
		return o.Detail(op, g.name)
	}
	return ""
}

// typeText is `f32 I[0:5] J[0:7]`, the element type and the domain.
func typeText(t ir.Type) string {
	tt, ok := tir.AsTensor(t)
	if !ok {
		return t.String()
	}
	return tt.Elem.String() + " " + domainText(tt, " ")
}

// dotQuote makes a DOT string: quotes and backslashes escaped, newlines as
// \n (a centred line break in labels).
func dotQuote(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, `"`, `\"`)
	s = strings.ReplaceAll(s, "\n", `\n`)
	return `"` + s + `"`
}
