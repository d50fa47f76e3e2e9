package interp

import (
	"fmt"
	"strings"

	"tir/dialects/sizeexpr"
)

// Every op that moves data between domains (broadcasting, shift, view,
// subset, restriction to an output domain, slicing for reductions and
// scans) is one index map: for each point of the destination box, the
// coordinates in the source box, one affine function per source dimension.

// axisMap computes one source coordinate from a destination point:
// sum(coef * dst[from]) + c, or, for a non-linear view expression, expr
// evaluated with the destination dimensions by name.
type axisMap struct {
	terms []axisTerm
	c     int64
	expr  *sizeexpr.Expr
}

type axisTerm struct {
	from int // index of the destination dimension
	coef int64
}

// outsidePoint describes the first destination point that maps outside the
// source, for error messages.
type outsidePoint struct {
	dst   []int64
	dim   int // source dimension that is out of range
	coord int64
}

func (o *outsidePoint) describe(src, dst []Dim) string {
	var at []string
	for i, d := range dst {
		at = append(at, fmt.Sprintf("%s=%d", d.Name, o.dst[i]))
	}
	where := ""
	if len(at) > 0 {
		where = " at (" + strings.Join(at, ", ") + ")"
	}
	return fmt.Sprintf("reads %s = %d, outside %s%s", src[o.dim].Name, o.coord, src[o.dim], where)
}

// indexMap returns, for each point of dst in row-major order, the flat
// index into src of the mapped point, or -1 where it falls outside src;
// bad is the first such point (nil if none).
func indexMap(src, dst []Dim, axes []axisMap, syms map[string]int64) (idx []int, bad *outsidePoint, err error) {
	n := numPoints(dst)
	idx = make([]int, n)
	if n == 0 {
		return idx, nil, nil
	}
	strides := make([]int64, len(src))
	s := int64(1)
	for k := len(src) - 1; k >= 0; k-- {
		strides[k] = s
		s *= src[k].Extent()
	}
	coord := make([]int64, len(dst))
	for k, d := range dst {
		coord[k] = d.Lo
	}
	var named map[string]int64
	for _, a := range axes {
		if a.expr != nil {
			named = map[string]int64{}
		}
	}
	for i := 0; i < n; i++ {
		if named != nil {
			for k, d := range dst {
				named[d.Name] = coord[k]
			}
		}
		off := int64(0)
		for k, a := range axes {
			x := a.c
			if a.expr != nil {
				v, err := evalExpr(*a.expr, syms, named)
				if err != nil {
					return nil, nil, err
				}
				x = v
			}
			for _, t := range a.terms {
				x += t.coef * coord[t.from]
			}
			if x < src[k].Lo || x >= src[k].Hi {
				off = -1
				if bad == nil {
					bad = &outsidePoint{dst: append([]int64(nil), coord...), dim: k, coord: x}
				}
				break
			}
			off += (x - src[k].Lo) * strides[k]
		}
		idx[i] = int(off)
		for k := len(dst) - 1; k >= 0; k-- {
			coord[k]++
			if coord[k] < dst[k].Hi {
				break
			}
			coord[k] = dst[k].Lo
		}
	}
	return idx, bad, nil
}

// byName maps each source dimension to the destination dimension of the
// same name, moved by offsets[name] (read-at-offset: src = dst + off). A
// destination dimension the source lacks is broadcast; a source dimension
// the destination lacks is fixed at fixed[name] when given, an error
// otherwise.
func byName(src, dst []Dim, offsets, fixed map[string]int64) ([]axisMap, error) {
	axes := make([]axisMap, len(src))
	for k, d := range src {
		if c, ok := fixed[d.Name]; ok {
			axes[k] = axisMap{c: c}
			continue
		}
		j := findDim(dst, d.Name)
		if j < 0 {
			return nil, fmt.Errorf("the value varies along %s, which the domain %s lacks", d.Name, dimsString(dst))
		}
		axes[k] = axisMap{terms: []axisTerm{{from: j, coef: 1}}, c: offsets[d.Name]}
	}
	return axes, nil
}

// align returns t on the box dst, matching dimensions by name (broadcasting
// along dimensions t lacks). Every point of dst must be inside t's domain:
// the interpreter checks what type inference promised.
func align(t *Tensor, dst []Dim) (*Tensor, error) {
	if sameDims(t.Dims, dst) {
		return t, nil
	}
	return shifted(t, dst, nil)
}

// shifted is align with read-at-offset: result(p) = t(p + off).
func shifted(t *Tensor, dst []Dim, offsets map[string]int64) (*Tensor, error) {
	axes, err := byName(t.Dims, dst, offsets, nil)
	if err != nil {
		return nil, err
	}
	idx, bad, err := indexMap(t.Dims, dst, axes, nil)
	if err != nil {
		return nil, err
	}
	if bad != nil {
		return nil, fmt.Errorf("value on %s is read outside its domain: %s", dimsString(t.Dims), bad.describe(t.Dims, dst))
	}
	return take(t, dst, idx), nil
}

// slice fixes some dimensions of t at the given coordinates and returns the
// tensor over its other dimensions (fixed names t lacks are ignored).
func slice(t *Tensor, fixed map[string]int64) (*Tensor, error) {
	var rest []Dim
	for _, d := range t.Dims {
		if _, ok := fixed[d.Name]; !ok {
			rest = append(rest, d)
		}
	}
	axes, err := byName(t.Dims, rest, nil, fixed)
	if err != nil {
		return nil, err
	}
	idx, bad, err := indexMap(t.Dims, rest, axes, nil)
	if err != nil {
		return nil, err
	}
	if bad != nil {
		return nil, fmt.Errorf("slice %s", bad.describe(t.Dims, rest))
	}
	return take(t, rest, idx), nil
}

// insertSlice writes src into dst at the fixed coordinates: dst(p, fixed)
// = src(p) for every point p of dst's other dimensions (src must cover them;
// it broadcasts along those it lacks). Masks carry over.
func insertSlice(dst *Tensor, fixed map[string]int64, src *Tensor) error {
	var rest []Dim
	for _, d := range dst.Dims {
		if _, ok := fixed[d.Name]; !ok {
			rest = append(rest, d)
		}
	}
	s, err := align(src, rest)
	if err != nil {
		return err
	}
	axes, err := byName(dst.Dims, rest, nil, fixed)
	if err != nil {
		return err
	}
	idx, bad, err := indexMap(dst.Dims, rest, axes, nil)
	if err != nil {
		return err
	}
	if bad != nil {
		return fmt.Errorf("insert %s", bad.describe(dst.Dims, rest))
	}
	for i, j := range idx {
		copyElem(dst, j, s, i)
		if s.Masked(i) {
			if dst.Mask == nil {
				dst.Mask = make([]bool, dst.Len())
			}
			dst.Mask[j] = true
		} else if dst.Mask != nil {
			dst.Mask[j] = false
		}
	}
	return nil
}

// points calls f with the coordinates of every point of a box in row-major
// order (the slice is reused between calls).
func points(dims []Dim, f func(coord []int64) error) error {
	if numPoints(dims) == 0 {
		return nil
	}
	coord := make([]int64, len(dims))
	for k, d := range dims {
		coord[k] = d.Lo
	}
	for {
		if err := f(coord); err != nil {
			return err
		}
		k := len(dims) - 1
		for ; k >= 0; k-- {
			coord[k]++
			if coord[k] < dims[k].Hi {
				break
			}
			coord[k] = dims[k].Lo
		}
		if k < 0 {
			return nil
		}
	}
}
