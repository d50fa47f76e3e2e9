// Command tc-run runs a tir function on NumPy .npy inputs and writes its
// results as .npy files (spec 5.3). With --interp it uses the reference
// interpreter, the semantic oracle every compiled path is checked against.
package main

import "os"

func main() { os.Exit(Run(os.Args[1:], os.Stdout, os.Stderr)) }
