package emit

import (
	"fmt"
	"strings"
)

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
	return s != "" && !cReserved[s] && !(s[0] >= '0' && s[0] <= '9') && identChars(s) == s
}

// cNamer gives the parameters of one prototype distinct C identifiers:
// value names may hold characters C does not allow (%a.b, %0) or be
// keywords (%int), and a result may share an input's name. Names only
// document the parameters; the ABI is positional.
type cNamer struct {
	used map[string]bool
	// taken, when set, reports identifiers the generated code declares
	// itself where the parameters are in scope (the host wrapper's
	// locals); a parameter that would be called so gets an arg_ prefix.
	taken func(string) bool
}

func newCNamer() *cNamer { return &cNamer{used: map[string]bool{}} }

func (n *cNamer) name(s string) string {
	id := identChars(s)
	if id == "" || id[0] >= '0' && id[0] <= '9' {
		id = "arg_" + id
	}
	if cReserved[id] {
		id += "_"
	}
	if n.taken != nil && n.taken(id) {
		id = "arg_" + id
	}
	for base, i := id, 1; n.used[id]; i++ {
		id = fmt.Sprintf("%s_%d", base, i)
	}
	n.used[id] = true
	return id
}

// cLibrary holds the functions of the C standard library (C11: <math.h>
// with its f and l variants, <stdlib.h>, <stdio.h>, <string.h>, <ctype.h>,
// <time.h>, <signal.h>, <setjmp.h>, <locale.h>, <fenv.h>, <inttypes.h>)
// and of the POSIX headers generated C includes (<dlfcn.h>, <pthread.h>),
// plus main. A compiled function may have such a name (TC allows `def abs`),
// but C that includes those headers cannot declare it as such: generated
// C declares it under another identifier with an asm label giving the
// real symbol (CFuncIdent, CAsmLabel).
var cLibrary = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`
		acos asin atan atan2 cos sin tan acosh asinh atanh cosh sinh tanh
		exp exp2 expm1 frexp ilogb ldexp log log10 log1p log2 logb modf
		scalbn scalbln cbrt fabs hypot pow sqrt erf erfc lgamma tgamma ceil
		floor nearbyint rint lrint llrint round lround llround trunc fmod
		remainder remquo copysign nan nextafter nexttoward fdim fmax fmin fma
		roundeven exp10 pow10 sincos gamma j0 j1 jn y0 y1 yn significand
		drem finite isinf isnan`) {
		cLibrary[w], cLibrary[w+"f"], cLibrary[w+"l"] = true, true, true
	}
	for _, w := range strings.Fields(`
		main
		abs labs llabs div ldiv lldiv atof atoi atol atoll strtod strtof strtold
		strtol strtoll strtoul strtoull rand srand calloc malloc realloc free
		aligned_alloc posix_memalign memalign valloc abort atexit at_quick_exit exit
		_Exit quick_exit getenv system bsearch qsort mblen mbtowc wctomb
		mbstowcs wcstombs
		remove rename tmpfile tmpnam fclose fflush fopen freopen setbuf setvbuf
		fprintf fscanf printf scanf snprintf sprintf sscanf vfprintf vfscanf
		vprintf vscanf vsnprintf vsprintf vsscanf fgetc fgets fputc fputs getc
		getchar gets putc putchar puts ungetc fread fwrite fgetpos fseek
		fsetpos ftell rewind clearerr feof ferror perror fileno popen pclose
		memcpy memmove memset memcmp memchr strcpy strncpy strcat strncat
		strcmp strncmp strcoll strxfrm strchr strrchr strspn strcspn strpbrk
		strstr strtok strerror strlen strdup strndup strnlen bzero bcopy
		isalnum isalpha isblank iscntrl isdigit isgraph islower isprint
		ispunct isspace isupper isxdigit tolower toupper
		clock difftime mktime time asctime ctime gmtime localtime strftime
		timespec_get clock_gettime nanosleep sleep usleep
		signal raise setjmp longjmp setlocale localeconv
		feclearexcept fegetexceptflag feraiseexcept fesetexceptflag
		fetestexcept fegetround fesetround fegetenv feholdexcept fesetenv
		feupdateenv imaxabs imaxdiv strtoimax strtoumax
		dlopen dlsym dlclose dlerror
		pthread_once pthread_create pthread_join pthread_mutex_lock
		pthread_mutex_unlock pthread_self
		open close read write`) {
		cLibrary[w] = true
	}
}

// CLibraryName reports whether name is also a function of the C library
// (cLibrary).
func CLibraryName(name string) bool { return cLibrary[name] }

// CFuncIdent is the C identifier generated C uses for the compiled function
// name: the name itself, or tir_<name> for a C library name, declared with
// CAsmLabel so that the symbol is still name.
func CFuncIdent(name string) string {
	if cLibrary[name] {
		return "tir_" + name
	}
	return name
}

// CAsmLabel is what follows a declaration of CFuncIdent(name): an asm
// label naming the symbol (GCC and Clang; ELF targets, whose C symbols
// have no prefix) when the identifier differs from it, else "".
func CAsmLabel(name string) string {
	if CFuncIdent(name) == name {
		return ""
	}
	return " __asm__(\"" + name + "\")"
}

// identChars keeps the characters of a value name that C and Fortran
// identifiers may hold (ASCII letters, digits, '_'); any other becomes '_'.
func identChars(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
