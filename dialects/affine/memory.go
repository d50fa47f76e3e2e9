package affine

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
)

// affine.load / affine.store / affine.vector_load / affine.vector_store.
// Generic form: operands are [the stored value,] the memref, then the map
// operands; attribute `map` has one result per memref dimension. The custom
// form prints the map applied to its operands: %m[%i + 1, symbol(%N) - 1].

type memOp struct {
	name   string
	store  bool // has a value operand before the memref
	vector bool // moves a vector (the custom form names its type)
}

// The memory ops (see Ops for the naming rule).
var (
	Load        = memOp{"affine.load", false, false}.def()
	Store       = memOp{"affine.store", true, false}.def()
	VectorLoad  = memOp{"affine.vector_load", false, true}.def()
	VectorStore = memOp{"affine.vector_store", true, true}.def()
)

// memOps holds the shape of each memory op, for AccessParts.
var memOps = map[*ir.OpDef]memOp{}

// memIndex is the position of the memref operand.
func (k memOp) memIndex() int {
	if k.store {
		return 1
	}
	return 0
}

func (k memOp) def() *ir.OpDef {
	syntax := "%v = " + k.name + " %m[%i + 1, symbol(%N)] : memref<...>"
	if k.store {
		syntax = k.name + " %v, %m[%i + 1, symbol(%N)] : memref<...>"
	}
	if k.vector {
		syntax += ", vector<8xf32>"
	}
	nres := 1
	if k.store {
		nres = 0
	}
	var traits ir.Trait
	if !k.store {
		traits = ir.TraitReadOnly
	}
	d := &ir.OpDef{
		Name:        k.name,
		Traits:      traits,
		Summary:     "memory access at affine subscripts",
		Syntax:      syntax,
		NumOperands: -1, NumResults: nres, NumRegions: 0,
		Parse: k.parse,
		Print: k.print,
		NeedsGeneric: func(op *ir.Operation) bool {
			return k.shapeError(op) != nil || !arith.OnlyAttrs(op, "map")
		},
		Verify: k.verify,
	}
	memOps[d] = k
	return d
}

func (k memOp) parse(p *ir.OpParser, st *ir.OpState) error {
	var val *ir.Value
	var vloc ir.Location
	var err error
	if k.store {
		if val, vloc, err = arith.Operand(p); err != nil {
			return err
		}
		if err := p.ExpectPunct(","); err != nil {
			return err
		}
	}
	mem, mloc, err := arith.Operand(p)
	if err != nil {
		return err
	}
	m, ops, sloc, err := parseSubscripts(p)
	if err != nil {
		return err
	}
	tloc := p.CurLoc()
	t, err := arith.ColonType(p)
	if err != nil {
		return err
	}
	mt, ok := t.(ir.MemRefType)
	if !ok {
		return ir.Errorf(tloc, "expected a memref type, got %s", t)
	}
	if err := arith.CheckType(mem, mloc, mt); err != nil {
		return err
	}
	if len(m.Results) != len(mt.Shape) {
		return ir.Errorf(sloc, "'%s' has %d subscripts for a memref of rank %d", k.name, len(m.Results), len(mt.Shape))
	}
	elem := mt.Elem
	if k.vector {
		if err := p.ExpectPunct(","); err != nil {
			return err
		}
		if elem, err = p.Type(); err != nil {
			return err
		}
	}
	if k.store {
		if err := arith.CheckType(val, vloc, elem); err != nil {
			return err
		}
		st.Operands = []*ir.Value{val}
	} else {
		st.ResultTypes = []ir.Type{elem}
	}
	st.Operands = append(append(st.Operands, mem), ops...)
	st.Attrs = st.Attrs.With("map", ir.AffineMapAttr{Map: m})
	return p.ExpectEnd()
}

// parts returns the value (nil for loads), memref, map and map operands.
func (k memOp) parts(op *ir.Operation) (val, mem *ir.Value, m ir.AffineMap, ops []*ir.Value) {
	i := k.memIndex()
	if k.store {
		val = op.Operands[0]
	}
	m = op.Attr("map").(ir.AffineMapAttr).Map
	return val, op.Operands[i], m, op.Operands[i+1:]
}

func (k memOp) shapeError(op *ir.Operation) error {
	if len(op.Operands) < k.memIndex()+1 {
		return errf(op, "needs a memref operand")
	}
	if _, ok := op.Attr("map").(ir.AffineMapAttr); !ok {
		return errf(op, "needs an affine map attribute 'map'")
	}
	_, mem, m, ops := k.parts(op)
	mt, ok := mem.Type.(ir.MemRefType)
	if !ok {
		return errf(op, "operand #%d must be a memref, got %s", k.memIndex(), mem.Type)
	}
	if len(m.Results) != len(mt.Shape) {
		return errf(op, "has %d subscripts for a memref of rank %d", len(m.Results), len(mt.Shape))
	}
	if len(ops) != m.NumDims+m.NumSyms {
		return errf(op, "map has %d dims and %d symbols but %d index operands", m.NumDims, m.NumSyms, len(ops))
	}
	return nil
}

func (k memOp) print(p ir.OpPrinter, op *ir.Operation) {
	val, mem, m, ops := k.parts(op)
	p.Write(" ")
	if val != nil {
		p.Value(val)
		p.Write(", ")
	}
	p.Value(mem)
	printSubscripts(p, m, ops)
	p.Write(" : ")
	p.Type(mem.Type)
	if k.vector {
		p.Write(", ")
		if val != nil {
			p.Type(val.Type)
		} else {
			p.Type(op.Results[0].Type)
		}
	}
}

func (k memOp) verify(op *ir.Operation, _ func(*ir.Diagnostic)) error {
	if err := k.shapeError(op); err != nil {
		return err
	}
	val, mem, m, ops := k.parts(op)
	if err := checkIndexOperands(op, m, ops); err != nil {
		return err
	}
	elem := mem.Type.(ir.MemRefType).Elem
	var t ir.Type
	if val != nil {
		t = val.Type
	} else {
		t = op.Results[0].Type
	}
	if k.vector {
		vt, ok := t.(ir.VectorType)
		if !ok || !ir.TypeEqual(vt.Elem, elem) {
			return errf(op, "requires a vector of the memref's element type %s, got %s", elem, t)
		}
		return nil
	}
	if !ir.TypeEqual(t, elem) {
		if val != nil {
			return errf(op, "value to store has type %s but the memref holds %s", t, elem)
		}
		return errf(op, "result type %s does not match the memref element type %s", t, elem)
	}
	return nil
}

// NewLoad builds `%v = affine.load %mem[m(operands)]`.
func NewLoad(loc ir.Location, mem *ir.Value, m ir.AffineMap, operands []*ir.Value) *ir.Operation {
	elem := mem.Type.(ir.MemRefType).Elem
	return ir.NewOpOf(Load, loc, append([]*ir.Value{mem}, operands...), []ir.Type{elem},
		ir.DictAttr{}.With("map", ir.AffineMapAttr{Map: m}))
}

// NewStore builds `affine.store %v, %mem[m(operands)]`.
func NewStore(loc ir.Location, v, mem *ir.Value, m ir.AffineMap, operands []*ir.Value) *ir.Operation {
	return ir.NewOpOf(Store, loc, append([]*ir.Value{v, mem}, operands...), nil,
		ir.DictAttr{}.With("map", ir.AffineMapAttr{Map: m}))
}

// NewVectorLoad builds `%v = affine.vector_load %mem[m(operands)] : ..., vt`,
// reading vt's elements from consecutive positions of the last dimension.
func NewVectorLoad(loc ir.Location, vt ir.VectorType, mem *ir.Value, m ir.AffineMap, operands []*ir.Value) *ir.Operation {
	return ir.NewOpOf(VectorLoad, loc, append([]*ir.Value{mem}, operands...), []ir.Type{vt},
		ir.DictAttr{}.With("map", ir.AffineMapAttr{Map: m}))
}

// NewVectorStore builds `affine.vector_store %v, %mem[m(operands)]`.
func NewVectorStore(loc ir.Location, v, mem *ir.Value, m ir.AffineMap, operands []*ir.Value) *ir.Operation {
	return ir.NewOpOf(VectorStore, loc, append([]*ir.Value{v, mem}, operands...), nil,
		ir.DictAttr{}.With("map", ir.AffineMapAttr{Map: m}))
}

// AccessParts returns the stored value (nil for loads), the memref, the map
// and the map operands of an affine load or store.
func AccessParts(op *ir.Operation) (val, mem *ir.Value, m ir.AffineMap, operands []*ir.Value) {
	if k, ok := memOps[op.Def]; ok {
		return k.parts(op)
	}
	return nil, nil, ir.AffineMap{}, nil
}
