package native

import (
	"strings"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/lower/tcimport"
)

// Load reads a source file into a module by its extension: Tensor
// Comprehensions for .tc, the IR text otherwise.
func Load(file, src string) (*ir.Module, ir.DiagList) {
	if strings.HasSuffix(file, ".tc") {
		return tcimport.Import(file, src)
	}
	return parser.Parse(file, src)
}
