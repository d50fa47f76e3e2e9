package ir

// Rewriter is the only way patterns and folds change IR: every change goes
// through it, so a driver knows whether anything changed and can insert new
// ops at the right place.
type Rewriter struct {
	// Root bounds use replacement (the function or module being rewritten).
	Root    *Operation
	Changed bool
}

// InsertBefore inserts newOp right before anchor.
func (rw *Rewriter) InsertBefore(anchor, newOp *Operation) *Operation {
	b := anchor.ParentBlock()
	b.InsertAt(b.IndexOf(anchor), newOp)
	rw.Changed = true
	return newOp
}

// ReplaceOp replaces every use of op's results with vals and erases op.
func (rw *Rewriter) ReplaceOp(op *Operation, vals []*Value) {
	for i, r := range op.Results {
		if i < len(vals) && vals[i] != r {
			ReplaceAllUsesWith(rw.Root, r, vals[i])
		}
	}
	op.Erase()
	rw.Changed = true
}

// ReplaceUses replaces uses of old with new.
func (rw *Rewriter) ReplaceUses(old, new *Value) {
	ReplaceAllUsesWith(rw.Root, old, new)
	rw.Changed = true
}

// EraseOp removes an op whose results are unused.
func (rw *Rewriter) EraseOp(op *Operation) {
	op.Erase()
	rw.Changed = true
}

// Modified records an in-place change of op (operands or attributes).
func (rw *Rewriter) Modified(op *Operation) { rw.Changed = true }
