package native

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// BuildOptions configure BuildWith.
type BuildOptions struct {
	// ASan builds the function under LLVM's AddressSanitizer: every
	// function of the module gets the sanitize_address attribute and goes
	// through `opt -passes=asan-module` (LLVM 14's module and function
	// instrumentation in one pass) before llc, and the driver is linked
	// with `gcc -fsanitize=address` (gcc 12's libasan accepts LLVM 14's
	// instrumentation: both use version 8 of the runtime interface,
	// __asan_version_mismatch_check_v8, and the same shadow mapping). The
	// driver then allocates every argument and result at its exact size,
	// without the slack of a plain build, so that an access one element
	// past a buffer is reported. A report ends the run with an error that
	// holds it (its first line "ERROR: AddressSanitizer: ...").
	ASan bool
}

var (
	asanOnce  sync.Once
	asanError error
)

// ASanAvailable tells whether BuildOptions.ASan can work here (opt from
// LLVM 14, gcc's AddressSanitizer runtime, and a process that can map
// its shadow memory: an instrumented program is built and run once) and,
// when it cannot, why.
func ASanAvailable() error {
	asanOnce.Do(func() { asanError = probeASan() })
	return asanError
}

func probeASan() error {
	if _, err := Tool("opt"); err != nil {
		return err
	}
	out, err := exec.Command("gcc", "-print-file-name=libasan.so").Output()
	if err != nil {
		return fmt.Errorf("gcc: %v", err)
	}
	lib := strings.TrimSpace(string(out))
	if lib == "libasan.so" { // gcc prints the bare name when it has none
		return fmt.Errorf("gcc has no AddressSanitizer runtime (Debian: libasan8, installed with gcc)")
	}
	if _, err := os.Stat(lib); err != nil {
		return fmt.Errorf("gcc's AddressSanitizer runtime: %v", err)
	}
	dir, err := os.MkdirTemp("", "tir-asan-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	src, exe := filepath.Join(dir, "probe.c"), filepath.Join(dir, "probe")
	if err := os.WriteFile(src, []byte("#include <stdlib.h>\nint main(void) { char *p = malloc(8); p[0] = 1; int r = p[0] - 1; free(p); return r; }\n"), 0o644); err != nil {
		return err
	}
	if out, err := exec.Command("gcc", append(asanLinkFlags, src, "-o", exe)...).CombinedOutput(); err != nil {
		return fmt.Errorf("gcc -fsanitize=address cannot link: %v\n%s", err, out)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), asanEnv()...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("an AddressSanitizer program cannot run here: %v\n%s", err, out)
	}
	return nil
}

// asanLinkFlags come before the other flags of the driver's link.
var asanLinkFlags = []string{"-fsanitize=address", "-fno-omit-frame-pointer", "-g"}

// asanEnv is the environment of an instrumented driver: stop at the first
// report, no leak checking (temporaries are kept until exit by design,
// docs/abi.md), an allocation that cannot be satisfied answered with NULL
// as glibc answers it (ASan would report it and stop: the compiled code
// refuses such a call with a status code, which the tests check), and
// llvm-symbolizer for the reports' stack frames when there is one.
func asanEnv() []string {
	env := []string{"ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=0:exitcode=66:allocator_may_return_null=1"}
	if sym, err := Tool("llvm-symbolizer"); err == nil {
		env = append(env, "ASAN_SYMBOLIZER_PATH="+sym)
	}
	return env
}

// ASanEnv is the environment BuildOptions.ASan runs its driver in, for
// programs of a test's own that link code InstrumentASan built (with
// ASanLinkFlags); a later ASAN_OPTIONS in the list overrides it.
func ASanEnv() []string { return asanEnv() }

// ASanLinkFlags are gcc's flags that link an AddressSanitizer program.
func ASanLinkFlags() []string { return append([]string(nil), asanLinkFlags...) }

// InstrumentASan writes the AddressSanitizer build of the LLVM IR in path
// (whose text is llvmIR) next to it, as BuildOptions.ASan builds it, and
// returns its path: for tests that call compiled code from a C program of
// their own.
func InstrumentASan(path, llvmIR string) (string, error) { return instrumentASan(path, llvmIR) }

// instrumentASan writes the AddressSanitizer build of the LLVM IR in
// path (whose text is llvmIR) next to it and returns its path.
func instrumentASan(path, llvmIR string) (string, error) {
	opt, err := Tool("opt")
	if err != nil {
		return "", err
	}
	marked := strings.TrimSuffix(path, ".ll") + ".sanitize.ll"
	out := strings.TrimSuffix(path, ".ll") + ".asan.ll"
	text, err := sanitizeAddress(llvmIR)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(marked, []byte(text), 0o644); err != nil {
		return "", err
	}
	if msg, err := exec.Command(opt, "-S", "-passes=asan-module", marked, "-o", out).CombinedOutput(); err != nil {
		return "", fmt.Errorf("opt -passes=asan-module: %v\n%s", err, msg)
	}
	return out, nil
}

// sanitizeAddress gives every function definition of an LLVM module the
// sanitize_address attribute, without which the AddressSanitizer pass
// leaves a function alone. The attribute goes right after the parameter
// list (and unnamed_addr, addrspace), where function attributes begin.
func sanitizeAddress(llvmIR string) (string, error) {
	lines := strings.Split(llvmIR, "\n")
	n := 0
	for i, line := range lines {
		if !strings.HasPrefix(line, "define ") {
			continue
		}
		at := strings.IndexByte(line, '@')
		if at < 0 {
			return "", fmt.Errorf("line %d: a definition without a name: %s", i+1, line)
		}
		k := at + 1
		if k < len(line) && line[k] == '"' {
			k++
			for k < len(line) && line[k] != '"' {
				if line[k] == '\\' {
					k++
				}
				k++
			}
		}
		open := strings.IndexByte(line[k:], '(')
		if open < 0 {
			return "", fmt.Errorf("line %d: a definition without parameters: %s", i+1, line)
		}
		k += open
		depth := 0
		for ; k < len(line); k++ {
			if line[k] == '(' {
				depth++
			} else if line[k] == ')' {
				depth--
				if depth == 0 {
					break
				}
			}
		}
		if k == len(line) {
			return "", fmt.Errorf("line %d: unbalanced parameter list: %s", i+1, line)
		}
		k++
		rest := line[k:]
		for _, w := range []string{" unnamed_addr", " local_unnamed_addr"} {
			if strings.HasPrefix(rest, w) {
				k += len(w)
				rest = rest[len(w):]
			}
		}
		if strings.HasPrefix(rest, " addrspace(") {
			k += strings.IndexByte(rest, ')') + 1
		}
		lines[i] = line[:k] + " sanitize_address" + line[k:]
		n++
	}
	if n == 0 {
		return "", fmt.Errorf("the module defines no function")
	}
	// Without a triple the pass assumes another platform's shadow memory.
	if !strings.Contains(llvmIR, "\ntarget triple = ") && !strings.HasPrefix(llvmIR, "target triple = ") {
		return "", fmt.Errorf("the module has no target triple: AddressSanitizer would not know its shadow mapping")
	}
	return strings.Join(lines, "\n"), nil
}
