package driver

// tc-opt reads and prints the gpu dialect (what kernel outlining produces);
// like the dialects imported in driver.go, it registers its ops from init.
import _ "tir/dialects/gpu"
