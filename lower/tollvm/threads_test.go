package tollvm

import (
	"math/rand"
	"strings"
	"testing"
)

// threadsCase is testdata/threads.mlir on N = 13 rows: tmp = inp * alpha,
// then odd rows out = tmp + i (through an 8-wide stack scratch buffer),
// even rows out = tmp - alpha.
func threadsCase(rng *rand.Rand) *e2eCase {
	const n = 13
	inp := newBuf(rng, "inp", "float", false, n, 8)
	alpha := newBuf(rng, "alpha", "float", false)
	out := newBuf(rng, "out", "float", true, n, 8)
	a := float32(alpha.f[0])
	for i := 0; i < n; i++ {
		for j := 0; j < 8; j++ {
			t := float32(float32(inp.f[i*8+j]) * a)
			if i%2 == 1 {
				out.wantF[i*8+j] = float64(float32(t + float32(i)))
			} else {
				out.wantF[i*8+j] = float64(float32(t - a))
			}
		}
	}
	return &e2eCase{file: "threads", fn: "threads", args: []e2eArg{{buf: inp}, {buf: alpha}, {buf: out}, {index: n}}}
}

// TestE2EThreads runs the outlined loops with 1, 2 and 3 threads (every
// loop of two iterations or more forks), and without threads.
func TestE2EThreads(t *testing.T) {
	for _, c := range []struct {
		name string
		opts Options
		env  []string
	}{
		{"sequential", Options{}, nil},
		{"omp 1 thread", Options{Threads: "omp", ParallelMinWork: -1}, []string{"OMP_NUM_THREADS=1"}},
		{"omp 2 threads", Options{Threads: "omp", ParallelMinWork: -1}, []string{"OMP_NUM_THREADS=2"}},
		{"omp 3 threads", Options{Threads: "omp", ParallelMinWork: -1}, []string{"OMP_NUM_THREADS=3"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for seed := int64(1); seed <= 3; seed++ {
				tc := threadsCase(rand.New(rand.NewSource(seed)))
				tc.opts, tc.env = c.opts, c.env
				checkOutputs(t, tc, runE2E(t, tc))
			}
		})
	}
}

// TestE2EParallelThreads is TestE2EParallel with its affine.parallel
// (lower bound 1, step 2) split among three threads.
func TestE2EParallelThreads(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	inp := newBuf(rng, "inp", "int32_t", false, 10, 12)
	out := newBuf(rng, "out", "int32_t", true, 10, 12)
	cnt := newBuf(rng, "cnt", "int64_t", true)
	for i := 1; i < 9; i += 2 {
		for j := 0; j < 12; j += 3 {
			x := int32(inp.i[i*12+j])
			out.wantI[i*12+j] = int64(x * x)
		}
	}
	for k := 0; k < 10; k++ {
		if inp.i[k*12+k] > 0 {
			cnt.wantI[0]++
		}
	}
	c := &e2eCase{file: "parallel", fn: "parallel", args: []e2eArg{{buf: inp}, {buf: out}, {buf: cnt}},
		opts: Options{Threads: "omp", ParallelMinWork: -1}, env: []string{"OMP_NUM_THREADS=3"}}
	checkOutputs(t, c, runE2E(t, c))
}

// TestThreadsShape checks what the outlining produces: a loop function and
// a thread function per outlined loop, the scratch buffer private to each
// thread, the loop with a cf.assert left in place, noalias and readonly
// pointers, and no libgomp without threads.
func TestThreadsShape(t *testing.T) {
	text, err := Emit(loadTestdata(t, "threads"), Options{Threads: "omp"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"define internal void @threads.body.par0.loop(i64 %i.lb, i64 %i.ub, float %alpha.1, float* noalias readonly %inp, i64 %inp.size0, i64 %inp.stride0, float* noalias %tmp, i64 %tmp.size0)",
		"define internal void @threads.body.par0(i8* %ctx)",
		"define internal void @threads.body.par1.loop(",
		"define internal void @threads.body.par2.loop(",
		"call void @GOMP_parallel(void (i8*)* @threads.body.par2, i8* ",
		"call i32 @omp_get_thread_num()",
		"call i32 @omp_get_num_threads()",
		"declare void @GOMP_parallel(",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q", want)
		}
	}
	if strings.Contains(text, "@threads.body.par3") {
		t.Errorf("the loop holding a cf.assert was outlined")
	}
	// The scratch buffer is an alloca of the loop function, not a
	// parameter.
	par1 := text[strings.Index(text, "define internal void @threads.body.par1.loop("):]
	par1 = par1[:strings.Index(par1, "\n}\n")]
	if !strings.Contains(par1, "alloca [8 x float]") || strings.Contains(par1[:strings.Index(par1, "\n")], "splat") {
		t.Errorf("the scratch buffer is not private to the thread:\n%s", par1)
	}
	if !UsesOpenMP(text) {
		t.Error("UsesOpenMP is false")
	}
	plain, err := Emit(loadTestdata(t, "threads"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if UsesOpenMP(plain) || strings.Contains(plain, ".par0") {
		t.Error("a build without threads calls libgomp")
	}
	if _, err := Emit(loadTestdata(t, "threads"), Options{Threads: "pthreads"}); err == nil {
		t.Error("an unknown threads mode was accepted")
	}
}

// TestThreadsMinWorkPerThread: a team gets no more threads than
// ParallelMinWork shares of the nest's estimated work, and forks only
// when two shares are there; the results stay right when the team is
// smaller than the threads allowed.
func TestThreadsMinWorkPerThread(t *testing.T) {
	text, err := Emit(loadTestdata(t, "threads"), Options{Threads: "omp", ParallelMinWork: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{", 2000\n", "sdiv i64 %", ", 1000\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q", strings.TrimSpace(want))
		}
	}
	// The team: min(omp_get_max_threads(), trip count, work / 1000).
	call := text[:strings.Index(text, "call void @GOMP_parallel(")]
	call = call[strings.LastIndex(call, "omp.max, %"):]
	if strings.Count(call, "select i1") != 2 {
		t.Errorf("the team is not limited by both the trip count and the work:\n%s", call)
	}
	for _, minWork := range []int64{8, 40} {
		for seed := int64(1); seed <= 2; seed++ {
			tc := threadsCase(rand.New(rand.NewSource(seed)))
			tc.opts, tc.env = Options{Threads: "omp", ParallelMinWork: minWork}, []string{"OMP_NUM_THREADS=3"}
			checkOutputs(t, tc, runE2E(t, tc))
		}
	}
}
