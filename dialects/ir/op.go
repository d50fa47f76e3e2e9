package ir

// Value is an SSA value: either the result of an operation or an argument of
// a block. NameHint keeps the name given in the input (without '%') so that
// printed IR stays readable; the printer only uses it when it is unique.
type Value struct {
	Type     Type
	NameHint string
	// Loc is where a block argument was declared (function parameters,
	// region arguments); op results use their op's location.
	Loc Location

	defOp    *Operation
	resultNo int
	block    *Block
	argNo    int
}

// DefiningOp is the op that produces the value, nil for block arguments.
func (v *Value) DefiningOp() *Operation { return v.defOp }

// ResultIndex is the position among the defining op's results.
func (v *Value) ResultIndex() int { return v.resultNo }

// OwnerBlock is the block of a block argument, nil for op results.
func (v *Value) OwnerBlock() *Block { return v.block }

// ArgIndex is the position among the owner block's arguments.
func (v *Value) ArgIndex() int { return v.argNo }

// Operation is the one generic op structure every dialect shares. Dialects
// read an op's attributes through small helpers of theirs (tir.DimAttr,
// tir.ReduceDims), not through typed op structs.
type Operation struct {
	Name     string
	Def      *OpDef // nil for ops of unregistered dialects
	Operands []*Value
	Results  []*Value
	Attrs    DictAttr
	Regions  []*Region
	// Successors are the blocks a terminator branches to (cf.br); they
	// belong to the region holding the op.
	Successors []*Block
	Loc        Location

	parent *Block
}

// Block is a list of operations with arguments.
type Block struct {
	Args []*Value
	Ops  []*Operation

	parent *Region
}

// Region is a list of blocks owned by an operation.
type Region struct {
	Blocks []*Block

	parent *Operation
}

// NewOpOf creates a detached operation of a registered op named by value
// (arith.Constant, tir.Shift), so that a misspelt op does not compile.
func NewOpOf(k OpKind, loc Location, operands []*Value, resultTypes []Type, attrs DictAttr) *Operation {
	d := k.Def()
	op := &Operation{Name: d.Name, Def: d, Operands: operands, Attrs: attrs, Loc: loc}
	op.SetResultTypes(resultTypes)
	return op
}

// NewOp creates a detached operation with results of the given types.
func NewOp(name string, loc Location, operands []*Value, resultTypes []Type, attrs DictAttr) *Operation {
	op := &Operation{Name: name, Def: LookupOp(name), Operands: operands, Attrs: attrs, Loc: loc}
	op.SetResultTypes(resultTypes)
	return op
}

// SetResultTypes (re)creates the result values; existing values are kept
// (and retyped) so that uses stay valid.
func (op *Operation) SetResultTypes(ts []Type) {
	for i, t := range ts {
		if i < len(op.Results) {
			op.Results[i].Type = t
			continue
		}
		op.Results = append(op.Results, &Value{Type: t, defOp: op, resultNo: i})
	}
	op.Results = op.Results[:len(ts)]
}

// Result returns result i.
func (op *Operation) Result(i int) *Value { return op.Results[i] }

// Operand returns operand i.
func (op *Operation) Operand(i int) *Value { return op.Operands[i] }

// ParentBlock is the block holding the op.
func (op *Operation) ParentBlock() *Block { return op.parent }

// ParentOp is the op whose region holds this op, nil at top level.
func (op *Operation) ParentOp() *Operation {
	if op.parent == nil || op.parent.parent == nil {
		return nil
	}
	return op.parent.parent.parent
}

// Attr returns the named attribute or nil.
func (op *Operation) Attr(name string) Attribute { return op.Attrs.Get(name) }

// SetAttr sets an attribute.
func (op *Operation) SetAttr(name string, v Attribute) { op.Attrs = op.Attrs.With(name, v) }

// AddRegion appends a new empty region and returns it.
func (op *Operation) AddRegion() *Region {
	r := &Region{parent: op}
	op.Regions = append(op.Regions, r)
	return r
}

// AdoptRegion attaches an existing region.
func (op *Operation) AdoptRegion(r *Region) {
	r.parent = op
	op.Regions = append(op.Regions, r)
}

// Is reports whether the op is one of the given registered ops.
func (op *Operation) Is(kinds ...OpKind) bool {
	if op == nil || op.Def == nil {
		return false
	}
	for _, k := range kinds {
		if op.Def == k.Def() {
			return true
		}
	}
	return false
}

// HasTrait reports whether the op's definition declares a trait.
func (op *Operation) HasTrait(t Trait) bool { return op.Def != nil && op.Def.Traits&t != 0 }

// ParentOp is the op owning the region.
func (r *Region) ParentOp() *Operation { return r.parent }

// AddBlock appends a new block with arguments of the given types.
func (r *Region) AddBlock(argTypes ...Type) *Block {
	b := &Block{parent: r}
	for _, t := range argTypes {
		b.AddArg(t, "")
	}
	r.Blocks = append(r.Blocks, b)
	return b
}

// AdoptBlock appends an existing block.
func (r *Region) AdoptBlock(b *Block) {
	b.parent = r
	r.Blocks = append(r.Blocks, b)
}

// Entry is the first block (nil for an empty region).
func (r *Region) Entry() *Block {
	if len(r.Blocks) == 0 {
		return nil
	}
	return r.Blocks[0]
}

// ParentRegion is the region holding the block.
func (b *Block) ParentRegion() *Region { return b.parent }

// BlockLabel is how the printer names a block: ^bb and its index.
func BlockLabel(b *Block) string { return "^bb" + itoa(b.Index()) }

func itoa(i int) string {
	if i < 0 {
		return "-" + itoa(-i)
	}
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// Index is the block's position in its region (-1 when detached).
func (b *Block) Index() int {
	if b.parent == nil {
		return -1
	}
	for i, o := range b.parent.Blocks {
		if o == b {
			return i
		}
	}
	return -1
}

// ParentOp is the op owning the block's region.
func (b *Block) ParentOp() *Operation {
	if b.parent == nil {
		return nil
	}
	return b.parent.parent
}

// AddArg appends a block argument.
func (b *Block) AddArg(t Type, hint string) *Value {
	v := &Value{Type: t, NameHint: hint, block: b, argNo: len(b.Args)}
	b.Args = append(b.Args, v)
	return v
}

// Append adds an op at the end of the block.
func (b *Block) Append(op *Operation) *Operation {
	op.parent = b
	b.Ops = append(b.Ops, op)
	return op
}

// InsertBefore inserts op before the op at index i.
func (b *Block) InsertAt(i int, op *Operation) {
	op.parent = b
	b.Ops = append(b.Ops, nil)
	copy(b.Ops[i+1:], b.Ops[i:])
	b.Ops[i] = op
}

// IndexOf returns the position of op in the block or -1.
func (b *Block) IndexOf(op *Operation) int {
	for i, o := range b.Ops {
		if o == op {
			return i
		}
	}
	return -1
}

// FindAncestor is the op of the block that holds op, op itself when it
// is in the block, or nil when op lies outside it (MLIR's
// findAncestorOpInBlock).
func (b *Block) FindAncestor(op *Operation) *Operation {
	for op != nil && op.ParentBlock() != b {
		op = op.ParentOp()
	}
	return op
}

// DefinedInside reports whether v is defined in one of scope's regions:
// a result of an op scope holds, or an argument of one of its blocks (a
// result of scope itself is not).
func DefinedInside(v *Value, scope *Operation) bool {
	b := v.OwnerBlock()
	if op := v.DefiningOp(); op != nil {
		b = op.ParentBlock()
	}
	for b != nil {
		p := b.ParentOp()
		if p == nil {
			return false
		}
		if p == scope {
			return true
		}
		b = p.ParentBlock()
	}
	return false
}

// Remove detaches op from the block.
func (b *Block) Remove(op *Operation) {
	if i := b.IndexOf(op); i >= 0 {
		b.Ops = append(b.Ops[:i], b.Ops[i+1:]...)
		op.parent = nil
	}
}

// Terminator is the last op of the block if it is a terminator.
func (b *Block) Terminator() *Operation {
	if len(b.Ops) == 0 {
		return nil
	}
	last := b.Ops[len(b.Ops)-1]
	if last.HasTrait(TraitTerminator) {
		return last
	}
	return nil
}

// Walk visits op and every op nested in it, pre-order. Returning false from
// f skips the op's regions.
func (op *Operation) Walk(f func(*Operation) bool) {
	if !f(op) {
		return
	}
	for _, r := range op.Regions {
		for _, b := range r.Blocks {
			for _, o := range append([]*Operation(nil), b.Ops...) {
				o.Walk(f)
			}
		}
	}
}

// ReplaceAllUsesWith makes every use of old inside root use new instead.
func ReplaceAllUsesWith(root *Operation, old, new *Value) {
	root.Walk(func(o *Operation) bool {
		for i, v := range o.Operands {
			if v == old {
				o.Operands[i] = new
			}
		}
		return true
	})
}

// HasUses reports whether v is used by any op inside root.
func HasUses(root *Operation, v *Value) bool {
	used := false
	root.Walk(func(o *Operation) bool {
		for _, u := range o.Operands {
			if u == v {
				used = true
			}
		}
		return !used
	})
	return used
}

// Users returns the ops inside root that use v, in walk order.
func Users(root *Operation, v *Value) []*Operation {
	var out []*Operation
	root.Walk(func(o *Operation) bool {
		for _, u := range o.Operands {
			if u == v {
				out = append(out, o)
				break
			}
		}
		return true
	})
	return out
}

// Erase removes op from its block. The caller guarantees its results are
// unused.
func (op *Operation) Erase() {
	if op.parent != nil {
		op.parent.Remove(op)
	}
}

// Module is the top-level container: a builtin.module op with one region and
// one block, plus the type aliases the input declared (kept so printed IR
// stays as readable as the input).
type Module struct {
	Op *Operation
	// TypeAliases in declaration order; the printer re-emits those it uses.
	TypeAliases []TypeAlias
	// Implicit is true when the input had no `module { }` wrapper; the
	// printer then prints the top-level ops bare, as the input had them.
	Implicit bool
	// File is the input file name (for diagnostics).
	File string
}

// TypeAlias is `!name = type`.
type TypeAlias struct {
	Name string
	Type Type
}

// NewModule creates an empty implicit module.
func NewModule(loc Location) *Module {
	op := NewOp("builtin.module", loc, nil, nil, nil)
	op.AddRegion().AddBlock()
	return &Module{Op: op, Implicit: true, File: loc.File}
}

// Body is the module's single block.
func (m *Module) Body() *Block { return m.Op.Regions[0].Blocks[0] }

// Lookup finds a top-level op by its sym_name.
func (m *Module) Lookup(sym string) *Operation {
	for _, op := range m.Body().Ops {
		if s, ok := op.Attr(AttrSymName).(StringAttr); ok && string(s) == sym {
			return op
		}
	}
	return nil
}

// SymbolName returns the op's sym_name or "".
func SymbolName(op *Operation) string {
	if s, ok := op.Attr(AttrSymName).(StringAttr); ok {
		return string(s)
	}
	return ""
}

// Attribute names every dialect shares (MLIR's builtin ones).
const (
	AttrSymName             = "sym_name"              // a symbol's name
	AttrSymVisibility       = "sym_visibility"        // "private" for a declaration-only symbol
	AttrOperandSegmentSizes = "operand_segment_sizes" // the operand groups of a variadic op
)
