package native

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"

	"tir/dialects/ir"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
)

// Results whose extents depend on data (tir.compress, tir.iota): the
// driver asks f_result_shape_data for their sizes once it has read the
// inputs, allocates them, and writes them with their sizes; the run's
// results get their domains from those sizes (interp.ResultDims).

// dataDependent reports whether a result type of the function uses an
// extent computed from data.
func (p *Program) dataDependent(t tir.TensorType) bool {
	return tir.TypeMentionsData(t, tir.DataSymbols(p.fn))
}

// resolveResultDims completes the domains of the results whose extents
// came from the run (nil entries), from the sizes in their files.
func (p *Program) resolveResultDims(args []*interp.Tensor, syms map[string]int64, dims [][]interp.Dim) error {
	missing := false
	for _, d := range dims {
		missing = missing || d == nil
	}
	if !missing {
		return nil
	}
	byName := map[string]*interp.Tensor{}
	for i, n := range interp.ArgNames(p.fn) {
		byName[n] = args[i]
	}
	syms = interp.InferSymbols(p.fn, byName, syms)
	extents := make([][]int64, len(p.ft.Results))
	for i := range p.ft.Results {
		e, err := readExtents(filepath.Join(p.Dir, fmt.Sprintf("out%d.bin", i)))
		if err != nil {
			return err
		}
		extents[i] = e
	}
	all, err := interp.ResultDims(p.fn, syms, extents)
	if err != nil {
		return fmt.Errorf("@%s: %v", ir.SymbolName(p.fn), err)
	}
	for i := range dims {
		if dims[i] == nil {
			dims[i] = all[i]
		}
	}
	return nil
}

// readExtents reads the header of a result file the driver wrote.
func readExtents(path string) ([]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rank int64
	if err := binary.Read(f, binary.LittleEndian, &rank); err != nil || rank < 0 || rank > 64 {
		return nil, fmt.Errorf("%s: bad header", path)
	}
	out := make([]int64, rank)
	if err := binary.Read(f, binary.LittleEndian, out); err != nil {
		return nil, fmt.Errorf("%s: bad header: %v", path, err)
	}
	return out, nil
}
