// Package ir is the core of TIR's intermediate representation: one generic
// operation structure (name, operands, results, attributes, regions of blocks
// with block arguments, a location), builtin types and attributes, the op
// registry in which every dialect describes its ops as data, diagnostics, the
// generic verifier and the printer. Dialect packages (tir, func, affine, ...)
// only add table entries and type rules on top of it.
package ir

import "fmt"

// Location is the source position of the first token of an op (or of
// whatever a diagnostic points at). Line and Col are 1-based; a zero Line
// means "unknown".
type Location struct {
	File string
	Line int
	Col  int
}

// UnknownLoc is used for IR created by passes without a better position.
var UnknownLoc = Location{}

// Known reports whether the location points into a source file.
func (l Location) Known() bool { return l.Line > 0 }

func (l Location) String() string {
	if !l.Known() {
		if l.File != "" {
			return l.File
		}
		return "<unknown>"
	}
	return fmt.Sprintf("%s:%d:%d", l.File, l.Line, l.Col)
}
