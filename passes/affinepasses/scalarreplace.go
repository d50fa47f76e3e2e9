package affinepasses

import (
	"fmt"
	"strings"

	"tir/dialects/affine"
	"tir/dialects/ir"
	"tir/dialects/memref"
	"tir/passes"
)

// affine-scalar-replace: replace memory round trips by SSA values within a
// block, as MLIR's affine-scalrep does:
//
//   - a load of the elements a store (or an earlier load) of the same
//     block accessed, with nothing in between that may write them, takes
//     the stored (or loaded) value;
//   - a store whose elements are stored again later in the block, with
//     nothing in between that may read them, is removed;
//   - a buffer from memref.alloc that is then only stored to (and
//     deallocated) is removed with its stores.
//
// "May write" and "may read" come from effects.go: an op with regions
// counts with everything nested in it, an op of unknown effect forgets
// everything, and elements are told apart only when the subscripts differ
// by a constant (same memref) or the memrefs cannot alias.
func init() {
	passes.Register(&passes.Def{
		Name:    "affine-scalar-replace",
		Title:   "AffineScalarReplace",
		Summary: "Forward stored values to later loads of the same elements in a block, drop redundant loads, overwritten stores and write-only buffers",
		Anchor:  passes.AnchorFunc,
		New: func(passes.Options) passes.Pass {
			return passes.PassFunc(func(fn *ir.Operation, ctx *passes.Context) error {
				x := newValueExprs()
				rw := &ir.Rewriter{Root: fn}
				blocks := nestedBlocks(fn)
				for _, b := range blocks {
					forwardInBlock(x, rw, b)
				}
				removeWriteOnlyBuffers(rw, fn)
				return nil
			})
		},
	})
}

// known is a value held by some elements of memory.
type known struct {
	acc access
	val *ir.Value
}

func forwardInBlock(x *valueExprs, rw *ir.Rewriter, b *ir.Block) {
	var avail availValues
	var pending []access       // stores nothing has read yet
	forget := func(a access) { // a write: values it may overwrite are lost
		avail.keep(func(k known) bool { return relate(k.acc, a) == disjoint })
	}
	unread := func(a access) { // a read: the stores it may read are used
		n := 0
		for _, p := range pending {
			if relate(p, a) == disjoint {
				pending[n] = p
				n++
			}
		}
		pending = pending[:n]
	}
	for _, o := range append([]*ir.Operation(nil), b.Ops...) {
		// An op with regions counts with everything nested in it, as
		// plain reads and writes (never forwarded: they may run any
		// number of times).
		accs, ok, unknown := ownAccess(x, o)
		if len(o.Regions) > 0 {
			accs, unknown = effects(x, o)
		} else if !ok && !unknown {
			continue
		}
		if unknown {
			avail, pending = availValues{}, nil
			continue
		}
		for _, a := range accs {
			switch {
			case !a.write && isLoad(o) && a.subs != nil:
				unread(a)
				if v := avail.lookup(a, o.Results[0].Type); v != nil {
					rw.ReplaceOp(o, []*ir.Value{v})
					continue
				}
				avail.add(known{a, o.Results[0]})
			case !a.write:
				unread(access{op: a.op, mem: a.mem, lanes: 1})
			case isStore(o) && a.subs != nil:
				for i := 0; i < len(pending); i++ {
					if relate(pending[i], a) == sameElems {
						rw.EraseOp(pending[i].op)
						pending = append(pending[:i], pending[i+1:]...)
						i--
					}
				}
				forget(a)
				avail.add(known{a, o.Operands[0]})
				pending = append(pending, a)
			default:
				forget(a)
			}
		}
	}
}

// availValues are the values known to be in memory, in the order they
// became known, indexed by the exact elements they hold: a block of
// thousands of loads (a long stencil, a big TC sum) looked each one up
// among all the others.
type availValues struct {
	list []known
	// at maps an access's elements (elemKey) to the last entry of list
	// holding them; rebuilt when entries are dropped.
	at map[string]int
}

// elemKey names the elements an access with known subscripts touches:
// canonical subscripts make equal keys exactly when relate says
// sameElems for the same memref.
func elemKey(a access) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%p/%d", a.mem, a.lanes)
	for _, e := range a.subs {
		b.WriteByte('|')
		b.WriteString(e.String())
	}
	return b.String()
}

func (av *availValues) add(k known) {
	if av.at == nil {
		av.at = map[string]int{}
	}
	av.list = append(av.list, k)
	av.at[elemKey(k.acc)] = len(av.list) - 1
}

// keep drops the entries for which ok is false.
func (av *availValues) keep(ok func(known) bool) {
	n := 0
	for _, k := range av.list {
		if ok(k) {
			av.list[n] = k
			n++
		}
	}
	if n == len(av.list) {
		return
	}
	av.list = av.list[:n]
	av.at = map[string]int{}
	for i, k := range av.list {
		av.at[elemKey(k.acc)] = i
	}
}

// lookup finds a value holding exactly the elements a reads, of type t.
func (av *availValues) lookup(a access, t ir.Type) *ir.Value {
	last, ok := av.at[elemKey(a)]
	if !ok {
		return nil
	}
	// The last value at these elements, or one before it of type t
	// (another type at the same elements is rare).
	for i := last; i >= 0; i-- {
		k := av.list[i]
		if relate(k.acc, a) == sameElems && ir.TypeEqual(k.val.Type, t) {
			return k.val
		}
	}
	return nil
}

func isStore(o *ir.Operation) bool {
	return o.Is(affine.Store, affine.VectorStore, memref.Store)
}

// removeWriteOnlyBuffers erases the allocations whose only uses are stores
// into them and their dealloc: nothing ever reads what is stored.
func removeWriteOnlyBuffers(rw *ir.Rewriter, fn *ir.Operation) {
	var allocs []*ir.Operation
	fn.Walk(func(o *ir.Operation) bool {
		if o.Is(memref.Alloc, memref.Alloca) {
			allocs = append(allocs, o)
		}
		return true
	})
	uses := ir.UsesIn(fn)
	for _, a := range allocs {
		buf := a.Results[0]
		users := uses.Users(buf)
		dead := true
		for _, u := range users {
			storeInto := isStore(u) && len(u.Operands) > 1 && u.Operands[1] == buf && u.Operands[0] != buf
			for _, idx := range u.Operands[min(2, len(u.Operands)):] {
				storeInto = storeInto && idx != buf
			}
			if !storeInto && !u.Is(memref.Dealloc) {
				dead = false
				break
			}
		}
		if !dead {
			continue
		}
		for _, u := range users {
			rw.EraseOp(u)
		}
		rw.EraseOp(a)
	}
}
