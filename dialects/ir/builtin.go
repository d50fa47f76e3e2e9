package ir

// The builtin dialect has one op, the module, the container of everything.
// As the other dialects do, it is a Go value, so that code names the op by
// value (op.Is(ir.BuiltinModule)) and a misspelt name does not compile.
// Naming rule: "Builtin" and the op's name after "builtin.", capitalised
// (builtin.module → BuiltinModule; plain Module is the wrapper type).

// BuiltinModule is builtin.module.
var BuiltinModule = &OpDef{
	Name:        "builtin.module",
	PrintName:   "module",
	Summary:     "the top-level container of functions",
	Syntax:      "module [attributes {...}] { ops }",
	Traits:      TraitIsolated,
	NumOperands: 0, NumResults: 0, NumRegions: 1,
	Parse: func(p *OpParser, st *OpState) error {
		attrs, err := p.OptionalAttrDict()
		if err != nil {
			return err
		}
		st.Attrs = attrs
		body, err := p.Region([]RegionArg{}, nil)
		if err != nil {
			return err
		}
		st.Regions = append(st.Regions, body)
		return p.ExpectEnd()
	},
	Print: func(p OpPrinter, op *Operation) {
		p.AttrDict(op.Attrs)
		p.Write(" ")
		p.Region(op.Regions[0], false)
	},
}

// BuiltinOps returns every op of the builtin dialect (a fresh slice).
func BuiltinOps() []*OpDef { return []*OpDef{BuiltinModule} }

func init() { Register(BuiltinOps()...) }
