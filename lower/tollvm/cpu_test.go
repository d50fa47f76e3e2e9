package tollvm

import "testing"

func TestX86Level(t *testing.T) {
	for _, c := range []struct {
		flags, name, features string
	}{
		{"fpu sse sse2", "x86-64", ""},
		{"sse2 pni ssse3 sse4_1 sse4_2 popcnt cx16 lahf_lm aes", "x86-64-v2", "+aes"},
		// Zen 3 in a VM: AVX2 and FMA, no AVX-512.
		{"pni ssse3 sse4_1 sse4_2 popcnt cx16 lahf_lm avx avx2 fma f16c bmi1 bmi2 abm movbe xsave adx sha_ni", "x86-64-v3", "+adx,+sha"},
		// AVX2 without FMA (a VM hiding it): not v3, whatever the model.
		{"pni ssse3 sse4_1 sse4_2 popcnt cx16 lahf_lm avx avx2 f16c bmi1 bmi2 abm movbe xsave", "x86-64-v2", "+avx,+avx2,+bmi,+bmi2,+f16c,+lzcnt,+movbe,+xsave"},
		{"pni ssse3 sse4_1 sse4_2 popcnt cx16 lahf_lm avx avx2 fma f16c bmi1 bmi2 abm movbe xsave avx512f avx512bw avx512cd avx512dq avx512vl avx512_vnni", "x86-64-v4", "+avx512vnni"},
	} {
		flags := cpuinfoFlags("processor : 0\nflags\t\t: " + c.flags + "\n")
		name, features := x86Level(flags)
		if name != c.name || features != c.features {
			t.Errorf("%q: got %s %q, want %s %q", c.flags, name, features, c.name, c.features)
		}
	}
}

func TestResolveCPU(t *testing.T) {
	if n, f, err := ResolveCPU("x86_64", "znver3"); err != nil || n != "znver3" || f != "" {
		t.Errorf("znver3: %s %s %v", n, f, err)
	}
	if n, _, err := ResolveCPU("aarch64", "neoverse-n1"); err != nil || n != "neoverse-n1" {
		t.Errorf("neoverse-n1: %s %v", n, err)
	}
	for _, c := range [][2]string{{"x86_64", "neoverse-n1"}, {"aarch64", "znver3"}, {"nvptx64", "sm_80"}, {"x86_64", "znver9"}} {
		if _, _, err := ResolveCPU(c[0], c[1]); err == nil {
			t.Errorf("%s on %s: no error", c[1], c[0])
		}
	}
	if n, f, err := ResolveCPU("x86_64", ""); err != nil || n != "" || f != "" {
		t.Errorf("empty: %s %s %v", n, f, err)
	}
}
