package npy

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// allocated runs f and returns the bytes it allocated.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestReadBeyondMemory: an array that cannot fit in the memory available
// is refused with both sizes, before its data is read or allocated.
func TestReadBeyondMemory(t *testing.T) {
	saved := availableMemory
	defer func() { availableMemory = saved }()
	availableMemory = func() (uint64, bool) { return 1 << 20, true }
	// 1000 x 1000 doubles: 8 MB of data, which the reader does not hold.
	data := fuzzFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1000, 1000), }", nil)
	var err error
	if grew := allocated(func() { _, err = Read(bytes.NewReader(data)) }); grew > 1<<20 {
		t.Errorf("refusing allocated %d bytes", grew)
	}
	want := "npy: shape [1000 1000] of float64 needs 22.9 MiB to read, more than the 1.0 MiB of memory available"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
	// Within the memory: read (here, truncated).
	availableMemory = func() (uint64, bool) { return 1 << 30, true }
	if _, err := Read(bytes.NewReader(data)); err == nil || !strings.Contains(err.Error(), "truncated data") {
		t.Fatalf("got %v, want a truncated-data error", err)
	}
	// Unknown memory (not Linux): nothing is refused for its size.
	availableMemory = func() (uint64, bool) { return 0, false }
	if _, err := Read(bytes.NewReader(data)); err == nil || !strings.Contains(err.Error(), "truncated data") {
		t.Fatalf("got %v, want a truncated-data error", err)
	}
}

// TestReadHugeFile: a 1 TiB array in a (sparse) file of that size is
// refused for lack of memory, on this machine's real figures, without
// reading it; the same header in a file without the data is truncated,
// found from the file's size.
func TestReadHugeFile(t *testing.T) {
	dir := t.TempDir()
	header := fuzzFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (137438953472,), }", nil)
	for _, c := range []struct {
		size int64 // of the file; 0: the header only
		want string
	}{
		{int64(len(header)) + 1<<40, "needs 3.0 TiB to read, more than the"},
		{0, "npy: truncated data: shape [137438953472] of float64 needs 1099511627776 bytes, got 0"},
	} {
		path := filepath.Join(dir, "a.npy")
		if err := os.WriteFile(path, header, 0o644); err != nil {
			t.Fatal(err)
		}
		if c.size > 0 {
			if err := os.Truncate(path, c.size); err != nil {
				t.Skipf("this file system has no sparse 1 TiB files: %v", err)
			}
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var rerr error
		grew := allocated(func() { _, rerr = Read(f) })
		f.Close()
		if rerr == nil || !strings.Contains(rerr.Error(), c.want) {
			t.Errorf("file of %d bytes: got %v, want %q", c.size, rerr, c.want)
		}
		if grew > 1<<20 {
			t.Errorf("file of %d bytes: refusing allocated %d bytes", c.size, grew)
		}
	}
}

// TestReadLyingStream: data announced by the header but missing from a
// stream (not a file, whose size is unknown) costs memory as it arrives,
// not what the header says.
func TestReadLyingStream(t *testing.T) {
	saved := availableMemory
	defer func() { availableMemory = saved }()
	availableMemory = func() (uint64, bool) { return 1 << 40, true }
	data := fuzzFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000,), }", make([]byte, 80))
	var err error
	grew := allocated(func() { _, err = Read(bytes.NewReader(data)) })
	if want := "npy: truncated data: shape [1000000000] of float64 needs 8000000000 bytes, got 80"; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
	if grew > 1<<20 {
		t.Errorf("a stream of %d bytes allocated %d bytes", len(data), grew)
	}
}
