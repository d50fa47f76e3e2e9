package native

import (
	"strings"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/tc"
)

// Load reads a source file into a module by its extension: Tensor
// Comprehensions for .tc, the IR text otherwise.
func Load(file, src string) (*ir.Module, ir.DiagList) {
	if strings.HasSuffix(file, ".tc") {
		return tc.Import(file, src)
	}
	return parser.Parse(file, src)
}
