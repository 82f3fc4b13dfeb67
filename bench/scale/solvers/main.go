// Command solvers times packages lanczos and lsqr on the dense benchmark
// matrices that make_matrices.py writes, for the side-by-side runs with
// scipy in run.sh (see README.md in this folder).
//
//	go run ./bench/scale/solvers -mode eigs -case tau5000 -k 10
//	go run ./bench/scale/solvers -mode lsqr -rhs 1
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/lanczos"
	"github.com/manifoldlab/manifold/lsqr"
)

var (
	dir        = flag.String("dir", "/tmp/manifold-solvers-bench", "folder with the .npy matrices")
	mode       = flag.String("mode", "eigs", "eigs (lanczos) or lsqr")
	name       = flag.String("case", "tau5000", "eigs: matrix tau5000 or random5000")
	k          = flag.Int("k", 10, "eigs: eigenpairs")
	b          = flag.Int("b", 0, "eigs: block size (0: default)")
	m          = flag.Int("m", 0, "eigs: basis size (0: default)")
	tol        = flag.Float64("tol", 0, "eigs: relative tolerance (0: the floor); lsqr: atol = btol")
	op         = flag.String("op", "", "eigs operator: full (backend.FullSymOp, the default), sym (backend.SymOp), general (backend.GeneralOp); lsqr operator: dense (backend.GeneralOp, the default), gemv (a lsqr.Func calling GeneralOp's Gemv products)")
	rhs        = flag.Int("rhs", 1, "lsqr: right-hand sides")
	damp       = flag.Float64("damp", 0, "lsqr: damping")
	reps       = flag.Int("reps", 3, "repetitions (best time reported)")
	cpuprofile = flag.String("cpuprofile", "", "write a CPU profile")
)

func main() {
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fail(err)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	switch *mode {
	case "eigs":
		eigs()
	case "lsqr":
		runLSQR()
	default:
		fail(fmt.Errorf("unknown -mode %q", *mode))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

func machine() string {
	return fmt.Sprintf("backend=%s GOMAXPROCS=%d NumCPU=%d", backend.Active().Name(), runtime.GOMAXPROCS(0), runtime.NumCPU())
}

func eigs() {
	n, c, data, err := readNpy(filepath.Join(*dir, *name+".npy"))
	if err != nil {
		fail(err)
	}
	if n != c {
		fail(fmt.Errorf("%s is %d×%d, not square", *name, n, c))
	}
	a := blas64.General{Rows: n, Cols: n, Stride: n, Data: data}
	var A lanczos.Operator
	switch *op {
	case "full", "":
		A = backend.FullSymOp{A: a}
	case "sym":
		A = backend.SymOp{A: blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: data}}
	case "general":
		A = backend.GeneralOp{A: a}
	default:
		fail(fmt.Errorf("unknown -op %q", *op))
	}
	s := lanczos.Settings{K: *k, BlockSize: *b, BasisSize: *m, Tol: *tol}
	best := math.Inf(1)
	var res *lanczos.Result
	for r := 0; r < *reps; r++ {
		s.Seed = uint64(r)
		t0 := time.Now()
		res, err = lanczos.Solve(context.Background(), A, s)
		best = math.Min(best, time.Since(t0).Seconds())
		if err != nil {
			fail(err)
		}
	}
	// Relative residuals ‖A·y − θ·y‖/‖A‖₂ computed from the matrix, not
	// timed. ‖A‖₂ = max |λ| from a separate solve for both ends.
	full := backend.FullSymOp{A: a}
	anorm := res.ANorm
	if lo, err := lanczos.Solve(context.Background(), full, lanczos.Settings{K: 1, Which: lanczos.Smallest}); err == nil {
		anorm = math.Max(anorm, math.Abs(lo.Values[0]))
	}
	y, ay := make([]float64, n), make([]float64, n)
	worst := 0.0
	for j := 0; j < *k; j++ {
		for i := 0; i < n; i++ {
			y[i] = res.Vectors.Data[i*res.Vectors.Stride+j]
		}
		full.MulVecTo(ay, y)
		ss := 0.0
		for i := range ay {
			d := ay[i] - res.Values[j]*y[i]
			ss += d * d
		}
		worst = math.Max(worst, math.Sqrt(ss)/anorm)
	}
	fmt.Printf("go lanczos %-10s k=%-3d tol=%-8.2g %.3f s  %4d matvecs  max rel residual %.2e  min eig %.6g  [op=%s b=%d m=%d restarts=%d %s]\n",
		*name, *k, res.Tol, best, res.Stats.MatVecs, worst, res.Values[*k-1], *op, res.Stats.BlockSize, res.Stats.BasisSize,
		res.Stats.Restarts, machine())
}

func runLSQR() {
	mr, nc, data, err := readNpy(filepath.Join(*dir, "lsqr5000x1000.npy"))
	if err != nil {
		fail(err)
	}
	mb, _, bdata, err := readNpy(filepath.Join(*dir, "lsqr_b5000.npy"))
	if err != nil {
		fail(err)
	}
	if mb != mr {
		fail(fmt.Errorf("b has %d rows, A %d", mb, mr))
	}
	a := blas64.General{Rows: mr, Cols: nc, Stride: nc, Data: data}
	bm := rhsBlock(a, bdata, *rhs)
	t := *tol
	if t == 0 {
		t = 1e-8
	}
	s := lsqr.Settings{Damp: *damp, ATol: t, BTol: t, ConLim: 1e8, IterLim: 10000}
	var A lsqr.Operator = backend.GeneralOp{A: a}
	switch *op {
	case "dense", "":
	case "gemv":
		g := backend.GeneralOp{A: a}
		A = lsqr.Func{Rows: mr, Cols: nc, Mul: g.MulVecTo, MulTrans: g.MulTransVecTo}
	default:
		fail(fmt.Errorf("unknown -op %q", *op))
	}
	best := math.Inf(1)
	var res []lsqr.Result
	for r := 0; r < *reps; r++ {
		t0 := time.Now()
		res, err = lsqr.SolveMany(context.Background(), A, bm, s)
		best = math.Min(best, time.Since(t0).Seconds())
		if err != nil {
			fail(err)
		}
	}
	its := make([]int, len(res))
	maxIt := 0
	for j, r := range res {
		its[j] = r.Iterations
		maxIt = max(maxIt, r.Iterations)
	}
	fmt.Printf("go lsqr 5000x1000 rhs=%-2d damp=%g tol=%g: %.4f s  iterations %v  istop=%d  %.3f ms/iteration  r1norm=%.6e  [op=%s %s]\n",
		*rhs, *damp, t, best, its, int(res[0].Status), 1e3*best/float64(maxIt), res[0].RNorm, *op, machine())
}

// rhsBlock returns the m×k block whose first column is b and whose others
// are A·x + e for x, e drawn as in lsqr_peer.py (the same distribution, not
// the same numbers: the iteration counts compare, not the bits).
func rhsBlock(a blas64.General, b []float64, k int) blas64.General {
	m, n := a.Rows, a.Cols
	bm := blas64.General{Rows: m, Cols: k, Stride: k, Data: make([]float64, m*k)}
	x, col := make([]float64, n), make([]float64, m)
	seed := uint64(3)
	for j := 0; j < k; j++ {
		if j == 0 {
			copy(col, b)
		} else {
			for i := range x {
				x[i] = normal(&seed)
			}
			backend.PureGo.Gemv(blas.NoTrans, 1, a, blas64.Vector{N: n, Inc: 1, Data: x}, 0, blas64.Vector{N: m, Inc: 1, Data: col})
			for i := range col {
				col[i] += 1e-3 * normal(&seed)
			}
		}
		for i := 0; i < m; i++ {
			bm.Data[i*k+j] = col[i]
		}
	}
	return bm
}

// normal is a small deterministic Box–Muller generator.
func normal(state *uint64) float64 {
	next := func() float64 {
		*state = *state*6364136223846793005 + 1442695040888963407
		return (float64(*state>>11) + 0.5) / (1 << 53)
	}
	return math.Sqrt(-2*math.Log(next())) * math.Cos(2*math.Pi*next())
}
