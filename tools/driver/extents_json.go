package driver

import (
	"strconv"
	"strings"
)

// parseSizes reads the --size NAME=INT bindings into cfg.sizes. They only
// apply to --emit=extents-json; a name the module does not have is
// reported by the emitter (emit.SizeError), also as a usage error.
func parseSizes(cfg *config) error {
	if len(cfg.sizeArgs) == 0 {
		return nil
	}
	if cfg.emit != "extents-json" {
		return usagef("--size only applies to --emit=extents-json")
	}
	cfg.sizes = map[string]int64{}
	for _, a := range cfg.sizeArgs {
		name, val, ok := strings.Cut(a, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return usagef("--size %s: expected NAME=INTEGER (e.g. --size N=64)", a)
		}
		v, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		if err != nil {
			return usagef("--size %s: '%s' is not an integer", a, val)
		}
		if old, dup := cfg.sizes[name]; dup && old != v {
			return usagef("--size: %s is bound twice (%d and %d)", name, old, v)
		}
		cfg.sizes[name] = v
	}
	return nil
}
