package native

import (
	"reflect"
	"testing"
)

// Programs that call libgomp get OMP_WAIT_POLICY=passive unless their
// environment chooses how libgomp waits.
func TestWaitPolicyEnv(t *testing.T) {
	for _, c := range []struct {
		env  []string
		add  []string
		desc string
	}{
		{[]string{"PATH=/bin"}, []string{"OMP_WAIT_POLICY=passive"}, "OMP_WAIT_POLICY=passive"},
		{[]string{"OMP_WAIT_POLICY=active"}, nil, "OMP_WAIT_POLICY=active"},
		{[]string{"GOMP_SPINCOUNT=1000"}, nil, "GOMP_SPINCOUNT=1000"},
		{[]string{"OMP_WAIT_POLICY=active", "OMP_WAIT_POLICY=passive", "GOMP_SPINCOUNT=10"}, nil, "OMP_WAIT_POLICY=passive GOMP_SPINCOUNT=10"},
	} {
		if got := WaitPolicyEnv(c.env); !reflect.DeepEqual(got, c.add) {
			t.Errorf("WaitPolicyEnv(%q) = %q, want %q", c.env, got, c.add)
		}
		if got, _ := WaitPolicy(c.env); got != c.desc {
			t.Errorf("WaitPolicy(%q) = %q, want %q", c.env, got, c.desc)
		}
	}
}
