package ir

import (
	"sort"
	"strings"
)

// Trait is a bit set of op properties the generic machinery relies on.
type Trait uint32

const (
	// TraitTerminator marks ops that end a block (return, yield).
	TraitTerminator Trait = 1 << iota
	// TraitPure marks ops without side effects: CSE and dead-code removal
	// may merge or drop them.
	TraitPure
	// TraitIsolated marks ops whose regions cannot see values defined
	// outside (functions); the printer restarts value numbering in them.
	TraitIsolated
	// TraitSymbol marks ops with a sym_name (functions).
	TraitSymbol
	// TraitConstantLike marks ops that materialise a constant.
	TraitConstantLike
	// TraitElementwise marks tir ops that broadcast their operands (2.2).
	TraitElementwise
	// TraitReadOnly marks ops whose only effect is reading memory (loads,
	// MLIR's MemRead): CSE merges two equal ones of a block when no op
	// between them may write.
	TraitReadOnly
)

// OpDef describes one op as data. Everything generic (the parser, printer,
// verifier, passes, docs) reads this table; adding an op means adding one
// entry, its type rule and its lowering.
type OpDef struct {
	Name string // "tir.add"
	// PrintName replaces Name in the custom form ("module" for
	// builtin.module, as MLIR prints it).
	PrintName string
	Summary   string // one line, for docs and diagnostics
	// Syntax documents the custom form, e.g. "%r = tir.add %a, %b : T".
	Syntax string
	Traits Trait
	// Operands/Results bound the counts; -1 means variadic. They are
	// checked by the generic verifier before Verify runs.
	NumOperands int
	NumResults  int
	NumRegions  int
	// Format is the declarative custom syntax (format.go); Register
	// derives Parse and Print from it. Ops whose syntax a format cannot
	// say leave it nil and write Parse and Print by hand.
	Format *Format
	// Parse reads the custom form (after the op name) into st. Nil means
	// the op has only the generic form.
	Parse func(p *OpParser, st *OpState) error
	// Print writes the custom form after the op name (and the results).
	Print func(p OpPrinter, op *Operation)
	// NeedsGeneric, when set, reports that this op cannot be written in its
	// custom form (an attribute the custom syntax has no place for); the
	// printer then writes the generic form, which every parser accepts.
	NeedsGeneric func(op *Operation) bool
	// Infer computes result types from operands and attributes. It runs
	// when the op is parsed or built; a result type given in the input must
	// equal the inferred one unless the op declares otherwise.
	Infer func(op *Operation) ([]Type, error)
	// Verify checks op-specific invariants; it returns a located error
	// (warnings go through Warn).
	Verify func(op *Operation, warn func(*Diagnostic)) error
	// Fold returns replacement values when the op simplifies to existing
	// values or constants; nil when it does not fold.
	Fold func(op *Operation, rw *Rewriter) bool
}

// OpPrinter is what custom Print hooks write through; the printer package
// implements it (it owns naming, indentation and alias handling).
type OpPrinter interface {
	// Write emits raw text.
	Write(s string)
	// Value prints a used value's name.
	Value(v *Value)
	// Values prints a comma-separated list of used values.
	Values(vs []*Value)
	// ArgDef prints a value defined by the op's syntax, `%name: T`.
	ArgDef(v *Value)
	// ArgName prints a value defined by the op's syntax without its type.
	ArgName(v *Value)
	// Type prints a type (using an alias when one was declared).
	Type(t Type)
	// Types prints a comma-separated type list.
	Types(ts []Type)
	// Attr prints an attribute.
	Attr(a Attribute)
	// Region prints a region; entry block arguments are printed in a
	// ^bb0(...) label only when printEntryArgs is true (ops that declare
	// them in their own syntax pass false).
	Region(r *Region, printEntryArgs bool)
	// AttrDict prints ` attributes {...}` with the remaining attributes, if
	// any after removing elided names.
	AttrDict(d DictAttr, elide ...string)
}

// TerminatorElider is implemented by OpPrinters that can leave out the
// terminators of a region's blocks, as MLIR does for implicit terminators
// (an affine.for body without iter_args ends in an elided affine.yield).
type TerminatorElider interface {
	RegionWithoutTerminators(r *Region, printEntryArgs bool)
}

// PrintRegion prints a region, leaving out block terminators when
// printTerminators is false and p supports it (otherwise they are printed,
// which parsers accept as well).
func PrintRegion(p OpPrinter, r *Region, printEntryArgs, printTerminators bool) {
	if te, ok := p.(TerminatorElider); ok && !printTerminators {
		te.RegionWithoutTerminators(r, printEntryArgs)
		return
	}
	p.Region(r, printEntryArgs)
}

// OpKind names a registered op by value: the *OpDef a dialect registers,
// or a dialect's richer op value that embeds one (tir.Op). Code outside a
// dialect asks op.Is(tir.Shift) and builds ir.NewOpOf(arith.AddF, ...)
// instead of spelling names, so that a misspelt op does not compile.
type OpKind interface{ Def() *OpDef }

// Def returns d itself: an *OpDef is the simplest OpKind.
func (d *OpDef) Def() *OpDef { return d }

// OpName returns the op's full name ("tir.shift").
func (d *OpDef) OpName() string { return d.Name }

var registry = map[string]*OpDef{}

// Register adds op definitions to the global registry (deriving the
// parser and printer of those with a Format). Dialect packages call it
// from init with their op tables.
func Register(defs ...*OpDef) {
	for _, d := range defs {
		if _, dup := registry[d.Name]; dup {
			panic("ir: op registered twice: " + d.Name)
		}
		if d.Format != nil {
			if d.Parse != nil || d.Print != nil {
				panic("ir: op with both a format and hand-written syntax: " + d.Name)
			}
			d.Parse, d.Print = d.Format.Parse, d.Format.Print
		}
		registry[d.Name] = d
	}
}

// LookupOp returns the definition of an op, or nil.
func LookupOp(name string) *OpDef { return registry[name] }

// RegisteredOps lists every op definition sorted by name.
func RegisteredOps() []*OpDef {
	out := make([]*OpDef, 0, len(registry))
	for _, d := range registry {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Dialect returns the dialect prefix of an op name.
func Dialect(opName string) string {
	d, _, _ := strings.Cut(opName, ".")
	return d
}

// TypeParser builds a dialect type (!dialect.name<params>) from its parsed
// parameters.
type TypeParser func(p *TypeParams) (Type, error)

// AttrParser builds a dialect attribute (#dialect.name<items>) from items.
type AttrParser func(p *OpParser) (Attribute, error)

var (
	typeParsers = map[string]TypeParser{}
	attrParsers = map[string]AttrParser{}
)

// RegisterType registers the parser of a dialect type such as "tir.tensor".
func RegisterType(name string, f TypeParser) { typeParsers[name] = f }

// LookupType returns the parser for a dialect type, or nil.
func LookupType(name string) TypeParser { return typeParsers[name] }

// RegisterAttr registers the parser of a dialect attribute such as
// "tir.offsets".
func RegisterAttr(name string, f AttrParser) { attrParsers[name] = f }

// LookupAttr returns the parser for a dialect attribute, or nil.
func LookupAttr(name string) AttrParser { return attrParsers[name] }
