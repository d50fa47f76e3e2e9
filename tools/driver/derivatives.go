package driver

import "tir/passes"

// withDerivatives runs tir-derivatives with its defaults before p, so
// that --derivatives combines with -O, per-pass flags and
// --pass-pipeline alike.
func withDerivatives(p *passes.Pipeline) (*passes.Pipeline, error) {
	if p.Anchor != passes.AnchorModule {
		return nil, usagef("--derivatives needs a pipeline anchored on %s, not %s", passes.AnchorModule, p.Anchor)
	}
	q := passes.NewPipeline(passes.AnchorModule)
	if err := q.AddPass("tir-derivatives", ""); err != nil {
		return nil, usagef("--derivatives: %v", err)
	}
	q.Elems = append(q.Elems, p.Elems...)
	return q, nil
}
