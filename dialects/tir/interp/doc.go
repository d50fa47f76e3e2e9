// Package interp is the reference interpreter of the tir dialect: the
// semantic oracle every lowering is tested against (spec 5.3). It evaluates
// a tir.func on concrete tensors with exact semantics:
//
//   - every value is computed on exactly the domain of its inferred type,
//     with the bounds evaluated at the run's size-symbol values, and the
//     interpreter checks that no op reads outside a domain (which would be
//     a bug of type inference) instead of trusting it;
//   - floats are rounded to their element type after every operation
//     (f32, f16, bf16), so compiled code with the same operation order is
//     bit-identical for + - * / sqrt min max and comparisons;
//   - integers wrap at their width; div rounds toward negative infinity
//     and rem has the sign of the divisor;
//   - gathers mask points with no neighbor; masks propagate through
//     elementwise ops, reductions and scans skip masked points (a masked
//     init stays masked), select is masked only where the chosen branch
//     (or the condition) is;
//   - function results are restricted to the declared output domains, and
//     their masked points hold 0 (the mask stays, to be counted).
//
// Evaluation is a table from op value (tir.Add) to one small function
// (eval.go, register); each file registers the ops it implements, and a
// test names any op of tir.Ops() the interpreter cannot run:
//
//	constant.go     tir.constant (scalars and nested tuples)
//	elementwise.go  add sub mul div rem min max pow, and or xor not, the
//	                unary math ops (neg abs exp log sqrt rsqrt sin cos tan
//	                tanh floor ceil round sigmoid), cmp, select, cast,
//	                make_tuple, tuple_get, can_deref
//	domainops.go    assume_shape (run-time check), pos
//	reduce.go       reduce: simple ("kind", "dims") and region forms
//	scatter.go      a reduce recognized as a scatter-add (tir.ScatterAddOf):
//	                one sweep over its table, its comparison chain deferred
//	scan.go         scan ("dim", "direction"; r(k) is the state after k)
//	call.go         call ("callee"; symbols bound from the actual bounds)
//	dataextent.go   iota, compress (extents computed from data)
//	run.go          tir.func / tir.return: argument binding, symbol
//	                inference from extents, output-domain restriction
//
// The ops that only move data (shift, view, subset, broadcast, gather,
// concat) have no function of their own: access.go evaluates them from
// their access rule (tir.AccessOf), with shift.go's index maps for views.
//
// Ops other than elementwise ones read their attributes by name and check
// their types, so an op whose IR representation changes fails with a
// message naming the attribute rather than a panic.
//
// Tensor (tensor.go) holds concrete dims, the element type, data in
// row-major storage order (F64 for floats, I64 for integers, one component
// tensor per tuple element) and an optional mask.
package interp
