package test

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
	"tir/tools/native"
)

// The Fortran module of tc-opt --emit=fortran (docs/fortran.md), built
// with gfortran -std=f2008 and called from a Fortran program: every
// example it covers is called three ways, and each result compared with
// the interpreter element by element:
//
//   - plain: allocatable arrays with the intervals as their bounds, size
//     parameters as integer(c_int64_t);
//   - sections: every array a section of a larger one (padded in every
//     dimension, every other element along the last Fortran dimension,
//     the first tir one), size parameters as integer(c_int32_t);
//   - for the neighbour tables of nabla, 1-based tables with <table>_base=1.
//
// The program is built with -fcheck=all, which reports an array temporary
// created for an argument at run time: none may be (the wrapper passes
// sections without a copy). A wrong extent returns its status and
// f_error's message; without stat, it stops the program with the message.

// needGfortran skips a test when gfortran is missing.
func needGfortran(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("gfortran")
	if err != nil {
		t.Skip("gfortran not found: the Fortran module cannot be built (make deps installs it)")
	}
	return p
}

// fortranModule runs tc-opt --emit=fortran.
func fortranModule(t *testing.T, path string) string {
	t.Helper()
	code, out, stderr := runTool(t, []string{"--emit=fortran", path}, "")
	if code != 0 {
		t.Fatalf("tc-opt --emit=fortran %s: exit %d\n%s", path, code, stderr)
	}
	return out
}

// fortranFlags are the flags every Fortran file of the tests is built
// with: standard Fortran 2008, every warning an error.
var fortranFlags = []string{"-std=f2008", "-Wall", "-Wextra", "-pedantic", "-Werror", "-fcheck=all", "-g"}

// TestFortranModuleCompiles builds the module of every shared example
// with gfortran -std=f2008 -Wall -Wextra -pedantic -Werror.
func TestFortranModuleCompiles(t *testing.T) {
	fc := needGfortran(t)
	shared, _ := filepath.Glob(filepath.Join("..", "..", "shared", "examples", "*.tir"))
	if len(shared) == 0 {
		t.Skip("shared examples not found next to the repository")
	}
	for _, f := range shared {
		f := f
		t.Run(filepath.Base(f), func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "m.f90")
			if err := os.WriteFile(src, []byte(fortranModule(t, f)), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(fc, append(fortranFlags, "-c", src, "-o", filepath.Join(dir, "m.o"))...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("gfortran: %v\n%s", err, out)
			}
		})
	}
}

type fortranCase struct {
	file   string
	syms   map[string]int64
	tables []int // arguments passed once more as 1-based tables
}

var fortranCases = []fortranCase{
	{file: "laplacian.tir"},
	{file: "laplacian_symbolic.tir", syms: map[string]int64{"N": 13, "M": 17}},
	{file: "hdiff.tir"},
	{file: "nabla.tir", syms: map[string]int64{"NV": 23, "NE": 31}, tables: []int{5, 6}},
	{file: "tridiag.tir"},
}

func TestFortranCallsCompiledCode(t *testing.T) {
	fc := needGfortran(t)
	needToolchain(t)
	for _, c := range fortranCases {
		c := c
		t.Run(strings.TrimSuffix(c.file, ".tir"), func(t *testing.T) {
			path := examplePath(t, c.file)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m, diags := parser.Parse(path, string(src))
			if len(diags) > 0 {
				t.Fatal(diags)
			}
			var fn *ir.Operation
			for _, op := range m.Body().Ops {
				if op.Is(tir.Func) {
					fn = op
				}
			}
			dir := t.TempDir()
			mod := fortranModule(t, path)
			os.WriteFile(filepath.Join(dir, "module.f90"), []byte(mod), 0o644)
			llvm, err := native.Compile(path, string(src), 2, "x86_64")
			if err != nil {
				t.Fatal(err)
			}
			llc, _ := native.Tool("llc")
			ll, obj := filepath.Join(dir, "kernel.ll"), filepath.Join(dir, "kernel.o")
			os.WriteFile(ll, []byte(llvm), 0o644)
			run(t, llc, "-O3", "-filetype=obj", "-relocation-model=pic", ll, "-o", obj)

			prog, want, variants := fortranProgram(t, dir, fn, c)
			os.WriteFile(filepath.Join(dir, "main.f90"), []byte(prog), 0o644)
			build := exec.Command(fc, append(fortranFlags, "module.f90", "main.f90", obj, "-o", "main")...)
			build.Dir = dir
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("gfortran: %v\n%s", err, out)
			}

			cmd := exec.Command("./main")
			cmd.Dir = dir
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("the Fortran program failed: %v\n%s%s", err, stdout.String(), stderr.String())
			}
			if strings.Contains(stderr.String(), "array temporary") {
				t.Errorf("an argument was copied into a temporary:\n%s", stderr.String())
			}
			for _, v := range variants {
				got := readFortranResults(t, dir, v, want)
				d, err := native.Compare(got, want)
				if err != nil {
					t.Fatalf("%s: %v", v, err)
				}
				if d.Compared == 0 {
					t.Fatalf("%s: nothing was compared", v)
				}
				if d.Mismatch > 0 {
					t.Errorf("%s: %d of %d elements differ from the interpreter (largest %.3g) at %s", v, d.Mismatch, d.Compared, d.MaxAbs, d.Where)
				}
				t.Logf("%s: %d elements equal to the interpreter's", v, d.Compared)
			}

			// The error path, with stat and errmsg.
			names := interp.ArgNames(fn)
			t0, _ := tir.AsTensor(fn.Regions[0].Entry().Args[0].Type)
			var msg string
			for _, l := range strings.Split(stdout.String(), "\n") {
				if m, ok := strings.CutPrefix(strings.TrimSpace(l), "error:"); ok {
					msg = strings.TrimSpace(m)
				}
			}
			wantMsg := fmt.Sprintf("argument '%s' dimension %s: expected extent", names[0], t0.Dims[0].Name)
			if !strings.Contains(msg, wantMsg) || strings.HasPrefix(msg, "0 ") {
				t.Errorf("a wrong extent gave %q, want a nonzero status and %q", msg, wantMsg)
			}
			t.Logf("wrong extent: status and message %s", msg)

			// Without stat, the same call stops the program with the
			// message.
			cmd = exec.Command("./main", "stop")
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Errorf("without stat, a wrong extent did not stop the program:\n%s", out)
			}
			if !strings.Contains(string(out), ir.SymbolName(fn)+": "+wantMsg) {
				t.Errorf("without stat, the program stopped without the message:\n%s", out)
			}
		})
	}
}

// fortranValue is the Fortran type of an element type of the examples,
// and its size in bytes.
func fortranValue(t *testing.T, e ir.Type) (string, int) {
	switch e.String() {
	case "f32":
		return "real(c_float)", 4
	case "f64":
		return "real(c_double)", 8
	case "i32":
		return "integer(c_int32_t)", 4
	case "i64":
		return "integer(c_int64_t)", 8
	}
	t.Fatalf("element type %s not covered by this test", e)
	return "", 0
}

// writeTensorFile writes a tensor's elements in C order (row-major: the
// order of a Fortran array with the dimensions reversed).
func writeTensorFile(t *testing.T, path string, x *interp.Tensor) {
	t.Helper()
	_, size := fortranValue(t, x.Elem)
	buf := make([]byte, 0, x.Len()*size)
	for i := 0; i < x.Len(); i++ {
		switch x.Elem.String() {
		case "f32":
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(float32(x.F64[i])))
		case "f64":
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(x.F64[i]))
		case "i32":
			buf = binary.LittleEndian.AppendUint32(buf, uint32(int32(x.I64[i])))
		case "i64":
			buf = binary.LittleEndian.AppendUint64(buf, uint64(x.I64[i]))
		}
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

// readFortranResults reads the results a variant wrote (out<k>_<variant>.bin).
func readFortranResults(t *testing.T, dir, variant string, want []*interp.Tensor) []*interp.Tensor {
	t.Helper()
	var got []*interp.Tensor
	for k, w := range want {
		g, err := interp.NewTensor(w.Elem, w.Dims)
		if err != nil {
			t.Fatal(err)
		}
		buf, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("out%d_%s.bin", k, variant)))
		if err != nil {
			t.Fatal(err)
		}
		_, size := fortranValue(t, w.Elem)
		if len(buf) != g.Len()*size {
			t.Fatalf("%s: result #%d has %d bytes, want %d", variant, k, len(buf), g.Len()*size)
		}
		for i := 0; i < g.Len(); i++ {
			switch w.Elem.String() {
			case "f32":
				g.F64[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:])))
			case "f64":
				g.F64[i] = math.Float64frombits(binary.LittleEndian.Uint64(buf[8*i:]))
			case "i32":
				g.I64[i] = int64(int32(binary.LittleEndian.Uint32(buf[4*i:])))
			case "i64":
				g.I64[i] = int64(binary.LittleEndian.Uint64(buf[8*i:]))
			}
		}
		got = append(got, g)
	}
	return got
}

// fortranBounds prints a tensor's Fortran bounds: its intervals,
// reversed, with inclusive upper bounds; pad widens every dimension by
// one on each side and, with stride2, doubles the last one.
func fortranBounds(dims []interp.Dim, pad, stride2 bool) string {
	var parts []string
	for k := len(dims) - 1; k >= 0; k-- {
		lo, hi := dims[k].Lo, dims[k].Hi-1
		if pad {
			lo, hi = lo-1, hi+1
			if k == 0 && len(dims) > 1 && stride2 {
				hi = dims[k].Lo + 2*dims[k].Extent()
			}
		}
		parts = append(parts, fmt.Sprintf("%d:%d", lo, hi))
	}
	return strings.Join(parts, ", ")
}

// fortranSection is the section of the padded array that holds the
// tensor: every other element along the last Fortran dimension.
func fortranSection(dims []interp.Dim) string {
	var parts []string
	for k := len(dims) - 1; k >= 0; k-- {
		lo, hi := dims[k].Lo, dims[k].Hi-1
		if k == 0 && len(dims) > 1 {
			parts = append(parts, fmt.Sprintf("%d:%d:2", lo, lo+2*(dims[k].Extent()-1)))
			continue
		}
		parts = append(parts, fmt.Sprintf("%d:%d", lo, hi))
	}
	return strings.Join(parts, ", ")
}

// fortranProgram writes the inputs to dir and returns the Fortran program,
// the interpreter's results and the names of the variants it writes.
func fortranProgram(t *testing.T, dir string, fn *ir.Operation, c fortranCase) (string, []*interp.Tensor, []string) {
	t.Helper()
	ft, _ := tir.FuncType(fn)
	name := ir.SymbolName(fn)
	var args []*interp.Tensor
	var decl, setup strings.Builder
	var plain, sect, based []string
	type arr struct {
		v    string
		dims []interp.Dim
	}
	var results []arr
	all := append(append([]ir.Type(nil), ft.Inputs...), ft.Results...)
	for i, ty := range all {
		tt, _ := tir.AsTensor(ty)
		input := i < len(ft.Inputs)
		dims, err := interp.EvalDims(tt, c.syms)
		if err != nil {
			t.Fatal(err)
		}
		if tt.Rank() == 0 {
			t.Fatal("0-d arguments are not covered by this test")
		}
		kind, _ := fortranValue(t, tt.Elem)
		v, s := fmt.Sprintf("a%d", i), fmt.Sprintf("s%d", i)
		colons := strings.TrimSuffix(strings.Repeat(":, ", tt.Rank()), ", ")
		fmt.Fprintf(&decl, "  %s, allocatable, target :: %s(%s), %s(%s)\n", kind, v, colons, s, colons)
		fmt.Fprintf(&setup, "  allocate (%s(%s), %s(%s))\n", v, fortranBounds(dims, false, false), s, fortranBounds(dims, true, true))
		sec := s + "(" + fortranSection(dims) + ")"
		plain, sect = append(plain, v), append(sect, sec)
		based = append(based, v)
		if !input {
			results = append(results, arr{v, dims})
			fmt.Fprintf(&setup, "  %s = 0\n  %s = 0\n", v, s)
			continue
		}
		a, err := interp.NewTensor(tt.Elem, dims)
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < a.Len(); k++ {
			if a.F64 != nil {
				a.F64[k] = interp.RoundTo(tt.Elem, floatValue(i, int64(k)))
			} else {
				a.I64[k] = intValue(i, int64(k))
			}
		}
		args = append(args, a)
		writeTensorFile(t, filepath.Join(dir, fmt.Sprintf("in%d.bin", i)), a)
		fmt.Fprintf(&setup, "  open (newunit=u, file='in%d.bin', access='stream', form='unformatted', status='old', action='read')\n  read (u) %s\n  close (u)\n", i, v)
		fmt.Fprintf(&setup, "  %s = -99\n  %s = %s\n", s, sec, v)
		for _, tb := range c.tables {
			if tb == i {
				b := fmt.Sprintf("b%d", i)
				fmt.Fprintf(&decl, "  %s, allocatable :: %s(%s)\n", kind, b, colons)
				fmt.Fprintf(&setup, "  %s = %s + 1\n", b, v)
				based[i] = b
			}
		}
	}
	var syms64, syms32 []string
	for _, s := range interp.Symbols(fn) {
		syms64 = append(syms64, fmt.Sprintf("%d_c_int64_t", c.syms[s]))
		syms32 = append(syms32, fmt.Sprintf("%d_c_int32_t", c.syms[s]))
	}
	names := interp.ArgNames(fn)
	var bases []string
	for _, tb := range c.tables {
		bases = append(bases, names[tb]+"_base=1")
	}

	var b strings.Builder
	fmt.Fprintf(&b, "program main\n  use, intrinsic :: iso_c_binding\n  use tir_%s\n  implicit none\n", strings.ToLower(name))
	b.WriteString(decl.String())
	b.WriteString("  integer :: u, stat\n  character(len=:), allocatable :: msg\n  character(len=8) :: arg\n\n")
	b.WriteString(setup.String())
	call := func(label string, as, syms, extra []string, out func(k int, r arr) string) {
		items := append(append(append([]string(nil), as...), syms...), extra...)
		items = append(items, "stat=stat", "errmsg=msg")
		fmt.Fprintf(&b, "\n  ! %s\n", label)
		b.WriteString(wrapF("  call "+name+"(", items, ")"))
		fmt.Fprintf(&b, "  if (stat /= 0) then\n    print '(a)', '%s failed: ' // msg\n    error stop\n  end if\n", label)
		for k, r := range results {
			fmt.Fprintf(&b, "  open (newunit=u, file='out%d_%s.bin', access='stream', form='unformatted', status='replace', action='write')\n  write (u) %s\n  close (u)\n", k, label, out(k, r))
		}
	}
	variants := []string{"plain", "sections"}
	call("plain", plain, syms64, nil, func(_ int, r arr) string { return r.v })
	call("sections", sect, syms32, nil, func(_ int, r arr) string {
		return "s" + strings.TrimPrefix(r.v, "a") + "(" + fortranSection(r.dims) + ")"
	})
	if len(c.tables) > 0 {
		for _, r := range results {
			fmt.Fprintf(&b, "  %s = 0\n", r.v)
		}
		call("based", based, syms64, bases, func(_ int, r arr) string { return r.v })
		variants = append(variants, "based")
	}

	// A wrong extent: the first argument one point short along its first
	// tir dimension (the last Fortran one).
	t0, _ := tir.AsTensor(ft.Inputs[0])
	short := append([]string(nil), plain...)
	short[0] = fmt.Sprintf("a0(%s:ubound(a0, %d) - 1)", strings.Repeat(":, ", t0.Rank()-1), t0.Rank())
	fmt.Fprintf(&b, "\n  ! A wrong extent.\n")
	b.WriteString(wrapF("  call "+name+"(", append(append(append([]string(nil), short...), syms64...), "stat=stat", "errmsg=msg"), ")"))
	b.WriteString("  if (stat == 0) then\n    print '(a)', 'a wrong extent was accepted'\n    error stop\n  end if\n")
	b.WriteString("  print '(a, i0, a, a)', 'error: ', stat, ' ', msg\n")
	b.WriteString("  if (command_argument_count() > 0) then\n    call get_command_argument(1, arg)\n    if (arg == 'stop') then\n")
	b.WriteString(wrapF("      call "+name+"(", append(append([]string(nil), short...), syms64...), ")"))
	b.WriteString("    end if\n  end if\nend program main\n")

	want, err := interp.Run(fn, args, c.syms)
	if err != nil {
		t.Fatalf("interpreter: %v", err)
	}
	return b.String(), want, variants
}

// wrapF prints a Fortran statement over continued lines.
func wrapF(head string, items []string, tail string) string {
	var b strings.Builder
	line := head
	for i, it := range items {
		if i > 0 {
			line += ", "
		}
		if len(line)+len(it) > 90 {
			b.WriteString(line + "&\n")
			line = "      "
		}
		line += it
	}
	b.WriteString(line + tail + "\n")
	return b.String()
}

// TestFortranDocExample builds and runs the program of docs/fortran.md
// (its first fortran block) against hdiff.
func TestFortranDocExample(t *testing.T) {
	fc := needGfortran(t)
	needToolchain(t)
	doc, err := os.ReadFile(filepath.Join("..", "docs", "fortran.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```fortran\n")
	prog, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 || !strings.Contains(prog, "use tir_hdiff") {
		t.Fatal("docs/fortran.md has no fortran block calling hdiff")
	}
	path := examplePath(t, "hdiff.tir")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	llvm, err := native.Compile(path, string(src), 2, "x86_64")
	if err != nil {
		t.Fatal(err)
	}
	llc, _ := native.Tool("llc")
	os.WriteFile(filepath.Join(dir, "hdiff.ll"), []byte(llvm), 0o644)
	run(t, llc, "-O3", "-filetype=obj", "-relocation-model=pic", filepath.Join(dir, "hdiff.ll"), "-o", filepath.Join(dir, "hdiff.o"))
	os.WriteFile(filepath.Join(dir, "hdiff_mod.f90"), []byte(fortranModule(t, path)), 0o644)
	os.WriteFile(filepath.Join(dir, "main.f90"), []byte(prog), 0o644)
	build := exec.Command(fc, append(fortranFlags, "hdiff_mod.f90", "main.f90", "hdiff.o", "-o", "main")...)
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("gfortran: %v\n%s", err, out)
	}
	cmd := exec.Command("./main")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
		t.Fatalf("the program of docs/fortran.md: %v\n%s", err, out)
	}
}
