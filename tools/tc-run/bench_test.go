package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"tir/tools/native"
)

func TestBenchTable(t *testing.T) {
	got := benchTable("lap", 2000, "", native.Timing{Median: 1500 * time.Nanosecond, Reps: 100}, 3*time.Millisecond)
	want := `bench @lap: 2000 bytes of compulsory traffic (inputs read once, results written once)
  code          runs     median       GB/s   vs compiled
  compiled       100    1.50 µs       1.33         1.00x
  interpreter      1    3.00 ms   0.000667         2000x
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	gpu := benchTable("lap", 4000, "", native.Timing{Median: 20 * time.Microsecond, Reps: 5, CopyMedian: 10 * time.Microsecond}, 0)
	for _, w := range []string{"  compiled         5    20.0 µs    0.2         1.00x\n", "  device copy      5    10.0 µs    0.4          0.5x\n"} {
		if !strings.Contains(gpu, w) {
			t.Errorf("the GPU table lacks %q:\n%s", w, gpu)
		}
	}
	if strings.Contains(gpu, "interpreter") {
		t.Errorf("no interpreter row without an interpreter run:\n%s", gpu)
	}
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		812: "812 ns", 1234: "1.23 µs", 45600 * time.Microsecond: "45.6 ms", 2 * time.Second: "2.00 s", 150 * time.Millisecond: "150 ms",
	} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestVersionFlag(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Run([]string{"--version"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, w := range []string{"tc-run commit ", "LLVM 14", "MLIR 16"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("--version lacks %q:\n%s", w, out.String())
		}
	}
}
