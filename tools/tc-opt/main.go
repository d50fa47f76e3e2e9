// Command tc-opt parses a TIR module, runs a pass pipeline on it and prints
// the result (spec document 5.2). All the work is in package tools/driver.
package main

import (
	"os"

	"tir/tools/driver"
)

func main() {
	os.Exit(driver.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
