package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// intersperse moves flags before positional arguments. urfave/cli v2 (like
// Go's flag package) stops parsing flags at the first positional argument,
// but the documented form is `tc-run FILE --entry f ...` with the file
// first. Value-taking flags keep their value; "--" ends flag parsing.
func intersperse(args []string, flags []cli.Flag) []string {
	takesValue := map[string]bool{}
	for _, f := range flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var opts, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			pos = append(pos, args[i+1:]...)
			i = len(args)
		case len(a) > 1 && a[0] == '-':
			opts = append(opts, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue[name] && i+1 < len(args) {
				opts = append(opts, args[i+1])
				i++
			}
		default:
			pos = append(pos, a)
		}
	}
	if len(pos) == 0 {
		return opts
	}
	return append(append(opts, "--"), pos...)
}
