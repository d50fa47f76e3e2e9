// Package memory tells how much memory the process can still allocate, so
// that the tools refuse an input whose arrays cannot fit with a message
// instead of being killed half-way.
package memory

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Available is the memory the process can still use, in bytes: the
// smallest of the system's available memory (MemAvailable of
// /proc/meminfo), the room left under the cgroup's limit (v2 memory.max,
// v1 memory.limit_in_bytes) and under the address-space limit
// (RLIMIT_AS, `ulimit -v`). ok is false when none of them is known (not
// Linux): then nothing should be refused.
func Available() (n uint64, ok bool) {
	consider := func(v uint64) {
		if !ok || v < n {
			n, ok = v, true
		}
	}
	if v, found := meminfo("MemAvailable"); found {
		consider(v)
	}
	for _, c := range [][2]string{
		{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},
		{"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"},
	} {
		limit, err1 := readUint(c[0])
		used, err2 := readUint(c[1])
		if err1 == nil && err2 == nil && limit < 1<<62 { // "max", or v1's huge "no limit"
			if used > limit {
				used = limit
			}
			consider(limit - used)
		}
	}
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err == nil && rl.Cur != ^uint64(0) {
		used, _ := status("VmSize")
		if used > rl.Cur {
			used = rl.Cur
		}
		consider(rl.Cur - used)
	}
	return n, ok
}

// Check returns an error when need bytes are more than Available, saying
// what needs them.
func Check(need float64, what string) error {
	avail, ok := Available()
	if !ok || need <= float64(avail) {
		return nil
	}
	return fmt.Errorf("%s need %s, more than the %s of memory available", what, Bytes(need), Bytes(float64(avail)))
}

// Bytes prints a size with a binary unit: 512 bytes, 1.5 KiB, 16.0 TiB.
func Bytes(n float64) string {
	if n < 1024 {
		return fmt.Sprintf("%.0f bytes", n)
	}
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"}
	u := -1
	for n >= 1024 && u < len(units)-1 {
		n /= 1024
		u++
	}
	return fmt.Sprintf("%.1f %s", n, units[u])
}

// meminfo reads a field of /proc/meminfo, in bytes.
func meminfo(field string) (uint64, bool) {
	return kbField("/proc/meminfo", field)
}

// status reads a field of /proc/self/status, in bytes.
func status(field string) (uint64, bool) {
	return kbField("/proc/self/status", field)
}

// kbField reads a "Name:   123 kB" line.
func kbField(path, field string) (uint64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		name, rest, ok := strings.Cut(s.Text(), ":")
		if !ok || name != field {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return 0, false
		}
		v, err := strconv.ParseUint(fields[0], 10, 64)
		if err != nil {
			return 0, false
		}
		if len(fields) > 1 && fields[1] == "kB" {
			v *= 1024
		}
		return v, true
	}
	return 0, false
}

func readUint(path string) (uint64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
}
