package ir

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"tir/dialects/sizeexpr"
)

// Attribute is a compile-time constant attached to an op. Like types,
// attributes are immutable values compared by their printed form.
type Attribute interface {
	String() string
}

// AttrEqual compares attributes structurally.
func AttrEqual(a, b Attribute) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.String() == b.String()
}

// IntegerAttr is `4 : i64` (the type defaults to i64 when printed bare in
// a dictionary it is still written, so the text round-trips exactly).
type IntegerAttr struct {
	Value int64
	Type  Type
}

func (a IntegerAttr) String() string {
	if a.Type == nil {
		return strconv.FormatInt(a.Value, 10)
	}
	if it, ok := a.Type.(IntegerType); ok && it.Width == 1 {
		if a.Value != 0 {
			return "true"
		}
		return "false"
	}
	return strconv.FormatInt(a.Value, 10) + " : " + a.Type.String()
}

// FloatAttr is `1.0 : f32`.
type FloatAttr struct {
	Value float64
	Type  Type
}

func (a FloatAttr) String() string {
	s := FormatFloat(a.Value, a.Type)
	if a.Type == nil {
		return s
	}
	return s + " : " + a.Type.String()
}

// FormatFloat prints a float as the shortest decimal that reads back to the
// same value of its type (always with a '.', so it lexes as a float in MLIR
// too: 1.0e+30), or as the hexadecimal bit pattern for NaN and infinities,
// which MLIR accepts too.
func FormatFloat(v float64, t Type) string {
	is32 := false
	if ft, ok := t.(FloatType); ok && ft.Bits() <= 32 {
		is32 = true
		// A value beyond f32's range (2.22e224 : f32 from a TC literal)
		// is the infinity it rounds to.
		v = float64(float32(v))
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		if is32 {
			return "0x" + strings.ToUpper(strconv.FormatUint(uint64(math.Float32bits(float32(v))), 16))
		}
		return "0x" + strings.ToUpper(strconv.FormatUint(math.Float64bits(v), 16))
	}
	bits := 64
	if is32 {
		bits = 32
	}
	s := strconv.FormatFloat(v, 'g', -1, bits)
	if !strings.Contains(s, ".") {
		// MLIR's lexer needs a '.' in a float literal, also before an
		// exponent: 1.0e+30, not 1e+30.
		if i := strings.IndexByte(s, 'e'); i >= 0 {
			s = s[:i] + ".0" + s[i:]
		} else {
			s += ".0"
		}
	}
	return s
}

// StringAttr is a quoted string.
type StringAttr string

func (a StringAttr) String() string { return QuoteString(string(a)) }

// QuoteString writes a string literal with C escapes that MLIR accepts.
func QuoteString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString("\\n")
		case c == '\t':
			b.WriteString("\\t")
		case c < 0x20 || c >= 0x7f:
			b.WriteString("\\" + strings.ToUpper(strconv.FormatUint(uint64(c)|0x100, 16)[1:]))
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// BoolAttr is true or false.
type BoolAttr bool

func (a BoolAttr) String() string {
	if a {
		return "true"
	}
	return "false"
}

// UnitAttr is the presence-only attribute (a bare key in a dictionary).
type UnitAttr struct{}

func (UnitAttr) String() string { return "unit" }

// ArrayAttr is [a, b, ...].
type ArrayAttr []Attribute

func (a ArrayAttr) String() string {
	parts := make([]string, len(a))
	for i, e := range a {
		parts[i] = e.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// TypeAttr wraps a type used as an attribute (function_type).
type TypeAttr struct{ Type Type }

func (a TypeAttr) String() string { return a.Type.String() }

// SymbolRefAttr is @name.
type SymbolRefAttr string

func (a SymbolRefAttr) String() string { return "@" + symbolName(string(a)) }

// NestedSymbolRefAttr is @root::@n1::@n2: a symbol that lives in the symbol
// table the root names (a gpu.func inside a gpu.module is @module::@func).
// A flat reference is a SymbolRefAttr; both print as MLIR does, so
// AttrEqual(NestedSymbolRefAttr{Root: "f"}, SymbolRefAttr("f")) holds.
type NestedSymbolRefAttr struct {
	Root   string
	Nested []string
}

func (a NestedSymbolRefAttr) String() string {
	var b strings.Builder
	b.WriteString("@" + symbolName(a.Root))
	for _, n := range a.Nested {
		b.WriteString("::@" + symbolName(n))
	}
	return b.String()
}

// SymbolPath returns the names a symbol reference attribute spells, root
// first (one name for a flat reference); ok is false for other attributes.
func SymbolPath(a Attribute) (path []string, ok bool) {
	switch a := a.(type) {
	case SymbolRefAttr:
		return []string{string(a)}, true
	case NestedSymbolRefAttr:
		return append([]string{a.Root}, a.Nested...), true
	}
	return nil, false
}

// SymbolRef builds the reference to path (root first): a SymbolRefAttr for
// one name, a NestedSymbolRefAttr for more. It panics on an empty path.
func SymbolRef(path ...string) Attribute {
	if len(path) == 1 {
		return SymbolRefAttr(path[0])
	}
	return NestedSymbolRefAttr{Root: path[0], Nested: append([]string(nil), path[1:]...)}
}

func symbolName(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '$' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return QuoteString(s)
		}
	}
	if s == "" {
		return `""`
	}
	return s
}

// NamedAttr is one dictionary entry.
type NamedAttr struct {
	Name  string
	Value Attribute
}

// DictAttr is {k = v, flag}. Entries are kept sorted by name, as MLIR does,
// so printing is deterministic whatever order passes set them in.
type DictAttr []NamedAttr

func (d DictAttr) String() string {
	parts := make([]string, len(d))
	for i, e := range d {
		parts[i] = formatEntry(e)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func formatEntry(e NamedAttr) string {
	name := e.Name
	if !isBareKey(name) {
		name = QuoteString(name)
	}
	if _, unit := e.Value.(UnitAttr); unit {
		return name
	}
	return name + " = " + e.Value.String()
}

func isBareKey(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '$' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// Get returns the value for name, or nil.
func (d DictAttr) Get(name string) Attribute {
	for _, e := range d {
		if e.Name == name {
			return e.Value
		}
	}
	return nil
}

// With returns a copy of d with name set to v, keeping entries sorted.
func (d DictAttr) With(name string, v Attribute) DictAttr {
	out := make(DictAttr, 0, len(d)+1)
	replaced := false
	for _, e := range d {
		if e.Name == name {
			out = append(out, NamedAttr{name, v})
			replaced = true
		} else {
			out = append(out, e)
		}
	}
	if !replaced {
		out = append(out, NamedAttr{name, v})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Without returns a copy of d without name.
func (d DictAttr) Without(name string) DictAttr {
	out := make(DictAttr, 0, len(d))
	for _, e := range d {
		if e.Name != name {
			out = append(out, e)
		}
	}
	return out
}

// AffineMap is (d0, ..., dn)[s0, ..., sm] -> (e0, ..., ek). Dims are
// sizeexpr Dim variables named d0..dn with Order 0..n; symbols are Sym
// variables named s0..sm with Order n+1.. so canonical printing lists dims
// before symbols, as MLIR does.
type AffineMap struct {
	NumDims int
	NumSyms int
	Results []sizeexpr.Expr
}

// MapDim returns the expression for dimension i of a map with nd dims.
func MapDim(i int) sizeexpr.Expr { return sizeexpr.Dim("d"+strconv.Itoa(i), i) }

// MapSym returns the expression for symbol i (ordered after all dims).
func MapSym(i int) sizeexpr.Expr { return sizeexpr.Sym("s"+strconv.Itoa(i), 1000+i) }

func (m AffineMap) String() string {
	var b strings.Builder
	b.WriteString("affine_map<")
	writeDimSyms(&b, m.NumDims, m.NumSyms)
	b.WriteString(" -> (")
	for i, r := range m.Results {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r.String())
	}
	b.WriteString(")>")
	return b.String()
}

func writeDimSyms(b *strings.Builder, nd, ns int) {
	b.WriteString("(")
	for i := 0; i < nd; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("d" + strconv.Itoa(i))
	}
	b.WriteString(")")
	if ns > 0 {
		b.WriteString("[")
		for i := 0; i < ns; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("s" + strconv.Itoa(i))
		}
		b.WriteString("]")
	}
}

// AffineMapAttr wraps an affine map.
type AffineMapAttr struct{ Map AffineMap }

func (a AffineMapAttr) String() string { return a.Map.String() }

// AffineConstraint is `e >= 0` or `e == 0`.
type AffineConstraint struct {
	Expr sizeexpr.Expr
	Eq   bool
}

// AffineSet is (dims)[syms] : (constraints).
type AffineSet struct {
	NumDims     int
	NumSyms     int
	Constraints []AffineConstraint
}

func (s AffineSet) String() string {
	var b strings.Builder
	b.WriteString("affine_set<")
	writeDimSyms(&b, s.NumDims, s.NumSyms)
	b.WriteString(" : (")
	for i, c := range s.Constraints {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.Expr.String())
		if c.Eq {
			b.WriteString(" == 0")
		} else {
			b.WriteString(" >= 0")
		}
	}
	b.WriteString(")>")
	return b.String()
}

// AffineSetAttr wraps an integer set.
type AffineSetAttr struct{ Set AffineSet }

func (a AffineSetAttr) String() string { return a.Set.String() }

// OpaqueAttr is a dialect attribute #dialect.name<body> no parser was
// registered for; it round-trips verbatim.
type OpaqueAttr struct{ Name, Body string }

func (a OpaqueAttr) String() string {
	if a.Body == "" {
		return "#" + a.Name
	}
	return "#" + a.Name + "<" + a.Body + ">"
}
