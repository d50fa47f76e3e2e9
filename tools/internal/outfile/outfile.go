// Package outfile writes the files a command produces (tc-opt -o,
// tc-run --out) the way users expect from a compiler in a build script:
//
//   - a regular file, or a name that does not exist yet, is replaced
//     atomically: the data goes to a temporary file in the same directory
//     that is renamed over the target only when everything succeeded, so a
//     failed run leaves the old file (or nothing) behind, never half of it;
//   - a symbolic link is followed: its target is written, the link stays;
//   - anything else (a character or block device such as /dev/null or
//     /dev/stdout, a FIFO, a socket) is opened and written through. Renaming a
//     temporary file over /dev/null would replace the device with a regular
//     file — for every program on the machine when run as root.
//
// Several outputs of one run are prepared first and committed together
// (Prepare for each, then Commit each), so a missing directory in the second
// output is reported before the first is written.
package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// maxLinkDepth bounds symlink resolution, as the kernel's ELOOP does.
const maxLinkDepth = 40

// File is an output being written. Write to it, then Commit; Abort discards
// what was written (a no-op after Commit).
type File struct {
	target string   // the path finally written, symlinks resolved
	f      *os.File // the temporary file, or the target itself when written through
	direct bool     // written through (not a regular file)
	mode   fs.FileMode
	done   bool
}

// Prepare opens an output for path. Nothing visible changes at path until
// Commit, except for special files, which are opened (and truncated) here.
func Prepare(path string) (*File, error) {
	target, fd, err := resolve(path)
	if err != nil {
		return nil, err
	}
	if fd >= 0 {
		// /dev/stdout and friends: the descriptor the shell set up, written
		// as it is (appending where the shell opened it with >>).
		f, err := syscall.Dup(fd)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		return &File{target: path, f: os.NewFile(uintptr(f), path), direct: true}, nil
	}
	info, err := os.Stat(target)
	switch {
	case err == nil && info.IsDir():
		return nil, fmt.Errorf("%s is a directory", path)
	case err == nil && !info.Mode().IsRegular():
		f, err := os.OpenFile(target, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return nil, err
		}
		return &File{target: target, f: f, direct: true}, nil
	case err == nil:
		return prepareTemp(target, info.Mode().Perm())
	case errors.Is(err, fs.ErrNotExist):
		return prepareTemp(target, 0o666&^umask())
	default:
		return nil, err
	}
}

func prepareTemp(target string, mode fs.FileMode) (*File, error) {
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			// CreateTemp names its random file; the user named the target.
			return nil, fmt.Errorf("cannot create %s: %v", target, pe.Err)
		}
		return nil, err
	}
	return &File{target: target, f: f, mode: mode}, nil
}

// Write appends data to the output.
func (o *File) Write(p []byte) (int, error) { return o.f.Write(p) }

// WriteString appends s to the output.
func (o *File) WriteString(s string) (int, error) { return o.f.WriteString(s) }

// Commit makes the output visible at its path.
func (o *File) Commit() error {
	if o.done {
		return nil
	}
	o.done = true
	if o.direct {
		return o.f.Close()
	}
	err := o.f.Close()
	if err == nil {
		err = os.Chmod(o.f.Name(), o.mode)
	}
	if err == nil {
		err = os.Rename(o.f.Name(), o.target)
	}
	if err != nil {
		os.Remove(o.f.Name())
	}
	return err
}

// Abort discards the output: the temporary file is removed and the target
// keeps its old contents. A special file already opened is only closed.
func (o *File) Abort() {
	if o.done {
		return
	}
	o.done = true
	o.f.Close()
	if !o.direct {
		os.Remove(o.f.Name())
	}
}

// WriteFile writes data to path with the rules of the package.
func WriteFile(path string, data []byte) error {
	return WriteAll([]string{path}, func(i int, w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteAll writes several outputs as one step: every path is prepared before
// any is written, write(i, w) fills output i, and only when every write
// succeeded are they committed. On error nothing is left at a regular path.
func WriteAll(paths []string, write func(i int, w io.Writer) error) error {
	files := make([]*File, 0, len(paths))
	abort := func() {
		for _, f := range files {
			f.Abort()
		}
	}
	for _, p := range paths {
		f, err := Prepare(p)
		if err != nil {
			abort()
			return err
		}
		files = append(files, f)
	}
	for i, f := range files {
		if err := write(i, f); err != nil {
			abort()
			return fmt.Errorf("%s: %v", paths[i], err)
		}
	}
	for i, f := range files {
		if err := f.Commit(); err != nil {
			abort()
			return fmt.Errorf("%s: %v", paths[i], err)
		}
	}
	return nil
}

// resolve follows symbolic links at path, also dangling ones (writing
// through a dangling link creates its target, as a shell redirection does).
// A path that names an open descriptor of this process (/dev/stdout,
// /dev/fd/N, /proc/self/fd/N) resolves to that descriptor instead: those
// links point at pipes and terminals that have no path to rename over.
func resolve(path string) (target string, fd int, err error) {
	for range maxLinkDepth {
		if fd, ok := descriptorPath(path); ok {
			return "", fd, nil
		}
		info, err := os.Lstat(path)
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			return path, -1, nil
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", -1, err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", -1, fmt.Errorf("%s: too many levels of symbolic links", path)
}

// descriptorPath recognises the names Linux gives the descriptors of the
// calling process.
func descriptorPath(path string) (int, bool) {
	path = filepath.Clean(path)
	switch path {
	case "/dev/stdin":
		return 0, true
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if rest, ok := strings.CutPrefix(path, dir); ok {
			if n, err := strconv.Atoi(rest); err == nil && n >= 0 {
				return n, true
			}
		}
	}
	return 0, false
}

var umaskOnce = onceUmask()

// onceUmask reads the mask the first time it is needed: reading it means
// setting it, which is done once, before any file is created.
func onceUmask() func() fs.FileMode {
	return sync.OnceValue(func() fs.FileMode {
		m := syscall.Umask(0)
		syscall.Umask(m)
		return fs.FileMode(m)
	})
}

// umask is the process's file-creation mask; new outputs get 0666 minus it,
// as files created by a shell redirection or a C compiler do.
func umask() fs.FileMode { return umaskOnce() }
