package outfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// entries lists a directory, so a test can see that no temporary file was
// left behind.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestRegularFileReplacedKeepingItsMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.ll")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != "new" {
		t.Errorf("contents %q, want %q", got, "new")
	}
	info, _ := os.Stat(p)
	if info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the old file's 0600", info.Mode().Perm())
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v, want only out.ll", names)
	}
}

func TestNewFileGetsUmaskMode(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	umaskOnce = onceUmask() // the mask changed under the cached value
	defer func() { umaskOnce = onceUmask() }()
	p := filepath.Join(t.TempDir(), "new.ll")
	if err := WriteFile(p, []byte("x")); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(p)
	if info.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0666 &^ 027 = 0640", info.Mode().Perm())
	}
}

func TestFailedWriteLeavesOldContents(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.ll")
	os.WriteFile(p, []byte("old"), 0o644)
	err := WriteAll([]string{p}, func(int, io.Writer) error {
		return errors.New("boom")
	})
	if err == nil {
		t.Fatal("want the write error")
	}
	if got := read(t, p); got != "old" {
		t.Errorf("contents %q after a failed write, want the old %q", got, "old")
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v, want only out.ll", names)
	}
}

// The second output's directory is missing: the first must not be written.
func TestAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join(dir, "r0.npy")
	err := WriteAll([]string{first, filepath.Join(dir, "missing", "r1.npy")}, func(int, io.Writer) error {
		t.Error("nothing may be written when a path cannot be created")
		return nil
	})
	if err == nil {
		t.Fatal("want an error for the missing directory")
	}
	if _, err := os.Stat(first); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("r0.npy exists after the run failed (%v)", err)
	}
	if names := entries(t, dir); len(names) != 0 {
		t.Errorf("directory holds %v, want nothing", names)
	}
}

func TestSymlinkIsFollowed(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.ll")
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.ll")
	if err := os.Symlink("real.ll", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	info, err := os.Lstat(link)
	if err != nil || info.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("link.ll is no longer a symlink (%v, %v)", info.Mode(), err)
	}
	if got := read(t, target); got != "new" {
		t.Errorf("target holds %q, want %q", got, "new")
	}
}

func TestDanglingSymlinkCreatesTarget(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	link := filepath.Join(dir, "link.ll")
	os.Symlink("sub/made.ll", link)
	if err := WriteFile(link, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(sub, "made.ll")); got != "x" {
		t.Errorf("target holds %q", got)
	}
	if info, _ := os.Lstat(link); info.Mode()&fs.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
}

func TestSymlinkLoop(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Symlink("b", a)
	os.Symlink("a", b)
	if err := WriteFile(a, []byte("x")); err == nil {
		t.Error("a symlink loop was written")
	}
}

// /dev/null stays a character device. Before the fix, root replaced it with
// a regular file; other users got "permission denied".
func TestDevNullWrittenThrough(t *testing.T) {
	if err := WriteFile(os.DevNull, []byte("discarded")); err != nil {
		t.Fatal(err)
	}
	info, err := os.Lstat(os.DevNull)
	if err != nil || info.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a character device: %v %v", os.DevNull, info.Mode(), err)
	}
	// And through a symlink to it, which any user can make.
	link := filepath.Join(t.TempDir(), "null")
	os.Symlink(os.DevNull, link)
	if err := WriteFile(link, []byte("discarded")); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Lstat(link); info.Mode()&fs.ModeSymlink == 0 {
		t.Error("the symlink to /dev/null was replaced")
	}
}

func TestFIFOWrittenThrough(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo) // opens the read end, so the writer's open returns
		got <- string(b)
	}()
	if err := WriteFile(fifo, []byte("through the pipe")); err != nil {
		t.Fatal(err)
	}
	// Checked before waiting for the reader, which never returns when the
	// FIFO was replaced.
	if info, _ := os.Lstat(fifo); info.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced by %v", info.Mode())
	}
	if s := <-got; s != "through the pipe" {
		t.Errorf("reader got %q", s)
	}
}

func TestDirectoryRefused(t *testing.T) {
	if err := WriteFile(t.TempDir(), []byte("x")); err == nil {
		t.Error("writing to a directory succeeded")
	}
}

// /dev/stdout names a pipe or terminal through a magic link; it is written
// through the process's own descriptor.
func TestDescriptorPaths(t *testing.T) {
	for path, want := range map[string]int{"/dev/stdout": 1, "/dev/stderr": 2, "/dev/fd/7": 7, "/proc/self/fd/3": 3, "/dev/fd/x": -1, "/dev/null": -1} {
		fd, ok := descriptorPath(path)
		if (want < 0 && ok) || (want >= 0 && (!ok || fd != want)) {
			t.Errorf("descriptorPath(%q) = %d, %v; want %d", path, fd, ok, want)
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	path := filepath.Join("/proc/self/fd", strconv.Itoa(int(w.Fd())))
	if err := WriteFile(path, []byte("piped")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if b, _ := io.ReadAll(r); string(b) != "piped" {
		t.Errorf("pipe got %q", b)
	}
}
