package ir

// Verify checks the structural invariants every op shares (operand and
// result counts, values defined before use and visible, terminators) and
// then each registered op's own Verify hook. Errors come back as a DiagList;
// warnings are passed to warn (nil drops them).
func Verify(root *Operation, warn func(*Diagnostic)) error {
	v := &verifier{warn: warn, visible: map[*Value]bool{}}
	v.op(root)
	if len(v.errs) > 0 {
		return v.errs
	}
	return nil
}

type verifier struct {
	warn    func(*Diagnostic)
	visible map[*Value]bool
	errs    DiagList
}

func (v *verifier) fail(err error, loc Location) {
	if l, ok := err.(DiagList); ok {
		v.errs = append(v.errs, l...)
		return
	}
	v.errs = append(v.errs, AsDiagnostic(err, loc))
}

func (v *verifier) op(op *Operation) {
	for i, o := range op.Operands {
		if o == nil {
			v.fail(Errorf(op.Loc, "'%s' operand #%d is null", op.Name, i), op.Loc)
			return
		}
		if !v.visible[o] {
			v.fail(Errorf(op.Loc, "'%s' operand #%d does not dominate this use", op.Name, i), op.Loc)
			return
		}
	}
	for i, r := range op.Results {
		if r.Type == nil {
			v.fail(Errorf(op.Loc, "'%s' result #%d has no type", op.Name, i), op.Loc)
			return
		}
	}
	if err := CheckResultSizes(op); err != nil {
		v.fail(err, op.Loc) // and go on: later uses of the results are fine
	}
	if d := op.Def; d != nil {
		if d.NumOperands >= 0 && len(op.Operands) != d.NumOperands {
			v.fail(Errorf(op.Loc, "'%s' expects %d operands, got %d", op.Name, d.NumOperands, len(op.Operands)), op.Loc)
			return
		}
		if d.NumResults >= 0 && len(op.Results) != d.NumResults {
			v.fail(Errorf(op.Loc, "'%s' expects %d results, got %d", op.Name, d.NumResults, len(op.Results)), op.Loc)
			return
		}
		if d.NumRegions >= 0 && len(op.Regions) != d.NumRegions {
			v.fail(Errorf(op.Loc, "'%s' expects %d regions, got %d", op.Name, d.NumRegions, len(op.Regions)), op.Loc)
			return
		}
	}
	// Regions of isolated ops see nothing from outside.
	saved := v.visible
	if op.HasTrait(TraitIsolated) {
		v.visible = map[*Value]bool{}
	}
	for _, r := range op.Regions {
		// In a region of several blocks, values of earlier blocks stay
		// visible in later ones (an approximation of dominance).
		var keep []*Value
		for _, b := range r.Blocks {
			keep = append(keep, v.block(b, len(r.Blocks) > 1)...)
		}
		for _, d := range keep {
			delete(v.visible, d)
		}
	}
	v.visible = saved
	for i, s := range op.Successors {
		if s == nil || op.parent == nil || s.ParentRegion() != op.parent.ParentRegion() {
			v.fail(Errorf(op.Loc, "'%s' successor #%d is not a block of the region holding the op", op.Name, i), op.Loc)
		}
	}
	if op.Def != nil && op.Def.Verify != nil {
		if err := op.Def.Verify(op, v.warn); err != nil {
			v.fail(err, op.Loc)
		}
	}
	for _, r := range op.Results {
		v.visible[r] = true
	}
}

func (v *verifier) block(b *Block, keepVisible bool) []*Value {
	var defined []*Value
	for i, a := range b.Args {
		v.visible[a] = true
		defined = append(defined, a)
		if err := CheckSizes(a.Type); err != nil {
			loc := a.Loc
			if !loc.Known() && b.ParentOp() != nil {
				loc = b.ParentOp().Loc
			}
			v.fail(Errorf(loc, "block argument #%d: %v", i, err), loc)
		}
	}
	for i, op := range b.Ops {
		if op.ParentBlock() != b {
			v.fail(Errorf(op.Loc, "'%s' has a wrong parent block", op.Name), op.Loc)
		}
		if op.HasTrait(TraitTerminator) && i != len(b.Ops)-1 {
			v.fail(Errorf(op.Loc, "'%s' must be the last operation of its block", op.Name), op.Loc)
		}
		v.op(op)
		defined = append(defined, op.Results...)
	}
	// Values of a block are not visible after it (sibling regions).
	if keepVisible {
		return defined
	}
	for _, d := range defined {
		delete(v.visible, d)
	}
	return nil
}
