package tollvm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testdataNames lists the generic-form inputs.
func testdataNames(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "*.mlir"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".mlir"))
	}
	return names
}

// TestCompile lowers every input for both CPU targets and checks that
// LLVM 14's verifier accepts the text and llc -O3 compiles it.
func TestCompile(t *testing.T) {
	llc := tool(t, "llc")
	opt := tool(t, "opt")
	for _, name := range testdataNames(t) {
		for _, target := range []string{"x86_64", "aarch64"} {
			t.Run(name+"/"+target, func(t *testing.T) {
				m := loadTestdata(t, name)
				dir := t.TempDir()
				ll := emitFile(t, m, Options{Target: target}, dir, name)
				run(t, dir, opt, "-passes=verify", "-disable-output", ll)
				run(t, dir, llc, "-O3", "-o", filepath.Join(dir, name+".s"), ll)
			})
		}
	}
}

// TestModuleShape checks the ABI-visible structure of the output.
func TestModuleShape(t *testing.T) {
	m := loadTestdata(t, "symbolic")
	out, err := Emit(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`target triple = "x86_64-unknown-linux-gnu"`,
		`target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"`,
		`define i32 @symbolic({ double*, double*, i64, [2 x i64], [2 x i64] }* %inp, { double*, double*, i64, [2 x i64], [2 x i64] }* %out, i64 %N, i64 %M)`,
		`define internal i32 @symbolic.body(double* noalias %inp, i64 %inp.offset, i64 %inp.size0, i64 %inp.size1, i64 %inp.stride0, double* noalias %out, i64 %out.offset, i64 %out.size0, i64 %out.size1, i64 %out.stride0, i64 %N, i64 %M)`,
		`define i8* @symbolic_error(i32 %code)`,
		`define i32 @symbolic_result_shape(i64 %N, i64 %M, i64* %sizes)`,
		`phi i64`,
		`add nsw i64`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	arm, err := Emit(m, Options{Target: "aarch64"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(arm, `target triple = "aarch64-unknown-linux-gnu"`) || !strings.Contains(arm, `e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128`) {
		t.Errorf("aarch64 triple or data layout missing")
	}
	if os.Getenv("TOLLVM_DUMP") != "" {
		t.Log(out)
	}
}
