package emit

import (
	"fmt"
	"strings"

	"tir/dialects/ir"
)

// cElem is how an element type crosses the C ABI: its C type and the
// suffix of descriptor names (tir_desc_<suffix>_<rank>).
type cElem struct {
	ctype, suffix string
	note          string // how to read the C type, when it is not obvious
}

// cElemOf maps a tir element type to C. Only what the LLVM lowering
// (tollvm.llType) can store in memory crosses the ABI: bf16 and tuples do
// not, so a header for them would declare a function that cannot be built.
func cElemOf(t ir.Type) (cElem, error) {
	switch t := t.(type) {
	case ir.FloatType:
		switch t.Name {
		case "f32":
			return cElem{ctype: "float", suffix: "f32"}, nil
		case "f64":
			return cElem{ctype: "double", suffix: "f64"}, nil
		case "f16":
			// C has no portable half type; the bits travel as is.
			return cElem{ctype: "uint16_t", suffix: "f16", note: "IEEE binary16 bits"}, nil
		}
	case ir.IntegerType:
		switch t.Width {
		case 1:
			// LLVM stores an i1 in one byte.
			return cElem{ctype: "uint8_t", suffix: "i1", note: "one byte, 0 or 1"}, nil
		case 8, 16, 32, 64:
			return cElem{ctype: fmt.Sprintf("int%d_t", t.Width), suffix: fmt.Sprintf("i%d", t.Width)}, nil
		}
	}
	return cElem{}, fmt.Errorf("element type %s cannot cross the C ABI of compiled functions (f16, f32, f64, i1, i8, i16, i32 and i64 can)", t)
}

// cReserved are the C and C++ keywords and the <stdint.h> type names a
// parameter must not be called.
var cReserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`
		auto break case char const continue default do double else enum extern
		float for goto if inline int long register restrict return short signed
		sizeof static struct switch typedef union unsigned void volatile while
		_Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn
		_Static_assert _Thread_local
		alignas alignof and and_eq asm bitand bitor bool catch char16_t char32_t
		class compl constexpr const_cast decltype delete dynamic_cast explicit
		export false friend mutable namespace new noexcept not not_eq nullptr
		operator or or_eq private protected public reinterpret_cast static_assert
		static_cast template this thread_local throw true try typeid typename
		using virtual wchar_t xor xor_eq
		int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t
		intptr_t uintptr_t size_t NULL`) {
		cReserved[w] = true
	}
}

// isCIdent reports whether s is a C identifier that is not reserved.
func isCIdent(s string) bool {
	if s == "" || cReserved[s] || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// cNamer gives the parameters of one prototype distinct C identifiers:
// value names may hold characters C does not allow (%a.b, %0) or be
// keywords (%int), and a result may share an input's name. Names only
// document the parameters; the ABI is positional.
type cNamer struct{ used map[string]bool }

func newCNamer() *cNamer { return &cNamer{used: map[string]bool{}} }

func (n *cNamer) name(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	id := b.String()
	if id == "" || id[0] >= '0' && id[0] <= '9' {
		id = "arg_" + id
	}
	if cReserved[id] {
		id += "_"
	}
	for base, i := id, 1; n.used[id]; i++ {
		id = fmt.Sprintf("%s_%d", base, i)
	}
	n.used[id] = true
	return id
}
