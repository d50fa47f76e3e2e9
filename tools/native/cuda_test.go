package native

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// storeTid is a minimal hand-written kernel: out[tid.x] = tid.x.
const storeTid = `.version 7.0
.target sm_80
.address_size 64

.visible .entry store_tid(
	.param .u64 store_tid_param_0
)
{
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<5>;

	ld.param.u64 	%rd1, [store_tid_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.u32 	[%rd4], %r1;
	ret;
}
`

func TestPTXAS(t *testing.T) {
	ptxas, err := PTXAS()
	if err != nil {
		t.Skipf("no ptxas: %v", err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "store_tid.ptx")
	cubin := filepath.Join(dir, "store_tid.cubin")
	if err := os.WriteFile(src, []byte(storeTid), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(ptxas, "-arch=sm_90", src, "-o", cubin).CombinedOutput(); err != nil {
		t.Fatalf("%s -arch=sm_90: %v\n%s", ptxas, err, out)
	}
	fi, err := os.Stat(cubin)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() == 0 {
		t.Fatalf("%s: empty cubin", cubin)
	}

	lib, err := Libdevice()
	if err != nil {
		t.Fatalf("ptxas found at %s but not libdevice: %v", ptxas, err)
	}
	data, err := os.ReadFile(lib)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("BC\xC0\xDE")) {
		t.Fatalf("%s: not LLVM bitcode (starts with % x)", lib, data[:min(len(data), 4)])
	}
}
