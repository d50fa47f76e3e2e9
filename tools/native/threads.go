package native

import "strings"

// libgomp makes a thread that waits for work, or for the others at the
// end of a parallel loop, spin for a while (300000 rounds unless told
// otherwise) before it sleeps. On a machine whose cores are busy with
// other programs the spinning thread takes a core that the thread it
// waits for needs: an f32 hdiff of 64x64x64 points built with --threads
// took 28 ms instead of 0.2 ms on one thread (docs/decisions.md).
// Passive waiting costs a few microseconds per fork instead, which the
// minimum work per thread of convert-to-llvm pays for. libgomp reads its
// settings once, when it is loaded, so the policy is the environment's:
// the programs our tools run get OMP_WAIT_POLICY=passive unless their
// environment already chooses a policy.

// DefaultWaitPolicy is the OMP_WAIT_POLICY the tools give programs that
// run --threads code.
const DefaultWaitPolicy = "passive"

// waitVars are the variables with which an environment chooses libgomp's
// waiting itself.
var waitVars = []string{"OMP_WAIT_POLICY", "GOMP_SPINCOUNT"}

// WaitPolicyEnv returns the variables to add to environ (KEY=VALUE
// entries, later ones winning) for a program that calls libgomp:
// OMP_WAIT_POLICY=passive, or nothing when environ sets OMP_WAIT_POLICY
// or GOMP_SPINCOUNT.
func WaitPolicyEnv(environ []string) []string {
	if _, set := WaitPolicy(environ); set {
		return nil
	}
	return []string{"OMP_WAIT_POLICY=" + DefaultWaitPolicy}
}

// WaitPolicy describes libgomp's waiting for a program run with environ
// and WaitPolicyEnv's additions: the variables that choose it
// ("OMP_WAIT_POLICY=passive", or the user's), and whether environ chose.
func WaitPolicy(environ []string) (desc string, userSet bool) {
	vals := map[string]string{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if ok {
			vals[k] = v // the last one wins, as for exec
		}
	}
	var chosen []string
	for _, k := range waitVars {
		if v, ok := vals[k]; ok {
			chosen = append(chosen, k+"="+v)
		}
	}
	if len(chosen) == 0 {
		return "OMP_WAIT_POLICY=" + DefaultWaitPolicy, false
	}
	return strings.Join(chosen, " "), true
}

// OpenMP reports whether the program calls libgomp (a --threads build).
func (p *Program) OpenMP() bool { return p.openmp }
