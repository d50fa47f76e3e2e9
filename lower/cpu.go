package lower

import (
	"fmt"

	"tir/lower/tollvm"
	"tir/passes"
)

// WithCPU makes a -O pipeline generate code for a CPU (tc-opt --mcpu):
// convert-to-llvm writes it as target-cpu/target-features, and
// affine-contraction-tile, when the pipeline has it, sizes its register
// tile for that CPU's vector registers (AVX-512: 32 of 512 bits). cpu is
// "native" or an LLVM processor name; target the pipeline's target.
func WithCPU(p *passes.Pipeline, target, cpu string) error {
	if _, err := p.SetOption("convert-to-llvm", "cpu", cpu); err != nil {
		return err
	}
	bits, regs, err := tollvm.VectorRegisters(target, cpu)
	if err != nil {
		return err
	}
	if _, err := p.SetOption("affine-contraction-tile", "vector-bits", fmt.Sprint(bits)); err != nil {
		return err
	}
	_, err = p.SetOption("affine-contraction-tile", "registers", fmt.Sprint(regs))
	return err
}

// WithContract lets a pipeline ending in convert-to-llvm fuse multiplies
// and adds (tc-opt --fp-contract=fast): convert-to-llvm{contract=true}.
func WithContract(p *passes.Pipeline) error {
	return p.SetLLVMOption("--fp-contract", "contract", "true")
}

// WithReassociate lets a pipeline ending in convert-to-llvm reorder float
// sums and products (tc-opt --fp-reassociate): affine-vectorize then
// vectorizes addf, subf and mulf reductions too (reassociate=true; one
// partial result per lane), and convert-to-llvm folds the lanes as a tree
// (reassociate-fp-reductions=true). Results are no longer bitwise those of
// the interpreter.
func WithReassociate(p *passes.Pipeline) error {
	if _, err := p.SetOption("affine-vectorize", "reassociate", "true"); err != nil {
		return err
	}
	return p.SetLLVMOption("--fp-reassociate", "reassociate-fp-reductions", "true")
}
