package ir

// The builtin dialect: only the module op, the container of everything.
func init() {
	Register(&OpDef{
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
	})
}
