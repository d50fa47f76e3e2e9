package ir

// Clone deep-copies op (with its regions). Operands found in mapping are
// replaced; every value defined inside the clone is added to mapping, so a
// caller cloning a sequence of ops keeps the uses between them connected.
func (op *Operation) Clone(mapping map[*Value]*Value) *Operation {
	return op.clone(mapping, map[*Block]*Block{})
}

// clone also maps the blocks of cloned regions, so that successors inside
// them point at the copies.
func (op *Operation) clone(mapping map[*Value]*Value, blocks map[*Block]*Block) *Operation {
	operands := make([]*Value, len(op.Operands))
	for i, v := range op.Operands {
		if m, ok := mapping[v]; ok {
			operands[i] = m
		} else {
			operands[i] = v
		}
	}
	types := make([]Type, len(op.Results))
	for i, r := range op.Results {
		types[i] = r.Type
	}
	attrs := append(DictAttr(nil), op.Attrs...)
	c := &Operation{Name: op.Name, Def: op.Def, Operands: operands, Attrs: attrs, Loc: op.Loc}
	c.SetResultTypes(types)
	for _, s := range op.Successors {
		if m, ok := blocks[s]; ok {
			s = m
		}
		c.Successors = append(c.Successors, s)
	}
	for i, r := range op.Results {
		c.Results[i].NameHint = r.NameHint
		mapping[r] = c.Results[i]
	}
	for _, r := range op.Regions {
		nr := c.AddRegion()
		for _, b := range r.Blocks {
			nb := &Block{}
			nr.AdoptBlock(nb)
			blocks[b] = nb
			for _, a := range b.Args {
				mapping[a] = nb.AddArg(a.Type, a.NameHint)
			}
		}
		for bi, b := range r.Blocks {
			for _, o := range b.Ops {
				nr.Blocks[bi].Append(o.clone(mapping, blocks))
			}
		}
	}
	return c
}
