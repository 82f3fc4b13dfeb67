package discriminant

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/internal/dense"
)

// labelled returns n centred rows of p features in c classes (labels
// 10·k, every class non-empty) whose class means are spread apart, as a
// blas64.General with a stride wider than p (the kernels must read rows by
// the stride), and the labels.
func labelled(seed uint64, n, p, c int) (blas64.General, []int) {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	labels := make([]int, n)
	centres := make([]float64, c*p)
	for i := range centres {
		centres[i] = 3 * rng.NormFloat64()
	}
	a := blas64.General{Rows: n, Cols: p, Stride: p + 2, Data: make([]float64, n*(p+2))}
	mean := make([]float64, p)
	for i := 0; i < n; i++ {
		k := i % c
		labels[i] = 10 * k
		for j := 0; j < p; j++ {
			v := centres[k*p+j] + rng.NormFloat64()
			a.Data[i*a.Stride+j] = v
			mean[j] += v / float64(n)
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			a.Data[i*a.Stride+j] -= mean[j]
		}
	}
	return a, labels
}

// toDense copies the r×c g into a mat.Dense.
func toDense(g blas64.General) *mat.Dense {
	d := mat.NewDense(g.Rows, g.Cols, nil)
	for i := 0; i < g.Rows; i++ {
		for j := 0; j < g.Cols; j++ {
			d.Set(i, j, g.Data[i*g.Stride+j])
		}
	}
	return d
}

// near fails unless got and want agree entry by entry to tol relative to
// want's largest entry.
func near(t *testing.T, what string, got, want mat.Matrix, tol float64) {
	t.Helper()
	r, c := want.Dims()
	if gr, gc := got.Dims(); gr != r || gc != c {
		t.Fatalf("%s: %d×%d, want %d×%d", what, gr, gc, r, c)
	}
	scale := mat.Norm(want, math.Inf(1))
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if e := math.Abs(got.At(i, j) - want.At(i, j)); e > tol*scale {
				t.Fatalf("%s[%d,%d] = %v, want %v", what, i, j, got.At(i, j), want.At(i, j))
			}
		}
	}
}

func TestClasses(t *testing.T) {
	y, classes, size := Classes([]int{5, -1, 5, 3, 5})
	if !slices.Equal(y, []int{2, 0, 2, 1, 2}) || !slices.Equal(classes, []int{-1, 3, 5}) || !slices.Equal(size, []int{1, 1, 3}) {
		t.Errorf("Classes = %v, %v, %v", y, classes, size)
	}
}

// Scatter against the definitions, entry by entry with gonum: the class
// means m_c, B = [√N_c·m_c] (the rows are centred, m = 0), S_W =
// Σ_c Σ_{x∈c} (x − m_c)(x − m_c)ᵀ, and S_B + S_W = S_T = AᵀA.
func TestScatterDefinitions(t *testing.T) {
	const n, p, c = 40, 5, 3
	a, labels := labelled(1, n, p, c)
	y, _, size := Classes(labels)
	means, b, sw, err := Scatter(context.Background(), a, y, size)
	if err != nil {
		t.Fatal(err)
	}
	ad := toDense(a)
	wantMeans := mat.NewDense(c, p, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			wantMeans.Set(y[i], j, wantMeans.At(y[i], j)+ad.At(i, j)/float64(size[y[i]]))
		}
	}
	near(t, "means", toDense(means), wantMeans, 1e-13)
	wantB := mat.NewDense(p, c, nil)
	for k := 0; k < c; k++ {
		for j := 0; j < p; j++ {
			wantB.Set(j, k, math.Sqrt(float64(size[k]))*wantMeans.At(k, j))
		}
	}
	near(t, "B", toDense(b), wantB, 1e-13)
	wantSW := mat.NewDense(p, p, nil)
	for i := 0; i < n; i++ {
		dv := mat.NewVecDense(p, nil)
		dv.SubVec(ad.RowView(i), wantMeans.RowView(y[i]))
		var outer mat.Dense
		outer.Outer(1, dv, dv)
		wantSW.Add(wantSW, &outer)
	}
	near(t, "S_W", toDense(sw), wantSW, 1e-12)
	var st, sb mat.Dense
	st.Mul(ad.T(), ad)
	sb.Mul(wantB, wantB.T())
	sb.Add(&sb, toDense(sw))
	near(t, "S_B + S_W", &sb, &st, 1e-12)
}

// invSqrt returns S^{-1/2} of the symmetric positive definite s.
func invSqrt(t *testing.T, s *mat.SymDense) *mat.Dense {
	var eig mat.EigenSym
	if !eig.Factorize(s, true) {
		t.Fatal("reference EigenSym failed")
	}
	var q mat.Dense
	eig.VectorsTo(&q)
	vals := eig.Values(nil)
	p := len(vals)
	d := mat.NewDiagDense(p, nil)
	for i, v := range vals {
		d.SetDiag(i, 1/math.Sqrt(v))
	}
	var r mat.Dense
	r.Product(&q, d, q.T())
	return &r
}

// Solve against the dense generalized eigenproblem S_B·w = λ(S_W + ρI)w
// reduced to the symmetric S_W'^{-1/2}·S_B·S_W'^{-1/2} z = λz (gonum's
// EigenSym), w = S_W'^{-1/2} z, on a well-conditioned S_W (random rows
// around 3 class means, 6 features): the eigenvalues agree and so do the
// columns of W up to sign (both have wᵀS_W'w = 1), with and without a
// ridge ρ.
func TestSolveMatchesEigenSym(t *testing.T) {
	const n, p, c, m = 60, 6, 4, 3
	a, labels := labelled(2, n, p, c)
	y, _, size := Classes(labels)
	_, b, sw, err := Scatter(context.Background(), a, y, size)
	if err != nil {
		t.Fatal(err)
	}
	for _, reg := range []float64{0, 0.1} {
		ridge := 0.0
		if reg > 0 {
			ridge = Ridge(reg, sw)
		}
		swr := mat.NewSymDense(p, nil)
		for i := 0; i < p; i++ {
			for j := i; j < p; j++ {
				v := sw.Data[i*p+j]
				if i == j {
					v += ridge
				}
				swr.SetSym(i, j, v)
			}
		}
		half := invSqrt(t, swr)
		bd := toDense(b)
		var hb, red mat.Dense
		hb.Mul(half, bd)
		red.Mul(&hb, hb.T())
		sym := mat.NewSymDense(p, nil)
		for i := 0; i < p; i++ {
			for j := i; j < p; j++ {
				sym.SetSym(i, j, (red.At(i, j)+red.At(j, i))/2)
			}
		}
		var eig mat.EigenSym
		if !eig.Factorize(sym, true) {
			t.Fatal("reference EigenSym failed")
		}
		vals := eig.Values(nil) // ascending
		var z, wref mat.Dense
		eig.VectorsTo(&z)
		wref.Mul(half, &z)

		swc := blas64.General{Rows: p, Cols: p, Stride: p, Data: slices.Clone(sw.Data)}
		got, w, err := Solve(swc, b, m, ridge)
		if err != nil {
			t.Fatalf("reg %v: %v", reg, err)
		}
		if len(got) != m || w.Rows != p || w.Cols != m {
			t.Fatalf("reg %v: %d eigenvalues, W %d×%d; want %d, %d×%d", reg, len(got), w.Rows, w.Cols, m, p, m)
		}
		for j := 0; j < m; j++ {
			want := vals[p-1-j]
			if math.Abs(got[j]-want) > 1e-10*vals[p-1] {
				t.Errorf("reg %v: λ_%d = %v, want %v", reg, j, got[j], want)
			}
			col := wref.ColView(p - 1 - j)
			sign := 1.0
			if mat.Dot(col, toDense(w).ColView(j)) < 0 {
				sign = -1
			}
			for i := 0; i < p; i++ {
				if e := math.Abs(sign*w.Data[i*w.Stride+j] - col.AtVec(i)); e > 1e-9*mat.Norm(col, math.Inf(1)) {
					t.Fatalf("reg %v: W[%d,%d] = %v, want %v", reg, i, j, sign*w.Data[i*w.Stride+j], col.AtVec(i))
				}
			}
		}
	}
}

// A singular S_W (a feature constant within every class) is ErrSingular
// without a ridge, and solvable with one.
func TestSolveSingular(t *testing.T) {
	const n, p, c = 30, 4, 3
	a, labels := labelled(3, n, p, c)
	for i := 0; i < n; i++ {
		a.Data[i*a.Stride+p-1] = float64(i%c) - 1 // the class alone
	}
	y, _, size := Classes(labels)
	_, b, sw, err := Scatter(context.Background(), a, y, size)
	if err != nil {
		t.Fatal(err)
	}
	keep := slices.Clone(sw.Data)
	if _, _, err := Solve(sw, b, 2, 0); !errors.Is(err, ErrSingular) {
		t.Fatalf("Solve of a singular S_W: %v, want ErrSingular", err)
	}
	sw.Data = keep
	if _, _, err := Solve(sw, b, 2, Ridge(0.01, sw)); err != nil {
		t.Fatalf("with a ridge: %v", err)
	}
}

// Where S_W is nonsingular the two solvers agree: Directions on the
// whitened class means (Whiten, WhitenedMeans; λ = σ²/(1 − σ²)) and Solve
// on the scatter matrices, both scaled to Wᵀ(S_W/n)W = I, give the same λ
// and the same columns up to sign; Whiten's scores are orthonormal and
// a·M = U. On the Gram path (D > n: 12 rows of 20 features in 3 classes)
// S_W is singular on the span of the rows and every direction Directions
// finds has no within-class scatter (λ reported as NoWithin).
func TestDirectionsAgreeWithSolve(t *testing.T) {
	for _, tc := range []struct{ n, p, c int }{{60, 6, 4}, {12, 20, 3}} {
		a, labels := labelled(4, tc.n, tc.p, tc.c)
		y, _, size := Classes(labels)
		ctx := context.Background()
		u, mp, err := Whiten(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		var utu, am mat.Dense
		utu.Mul(toDense(u).T(), toDense(u))
		ones := make([]float64, u.Cols)
		for j := range ones {
			ones[j] = 1
		}
		near(t, "UᵀU", &utu, mat.NewDiagDense(u.Cols, ones), 1e-10)
		am.Mul(toDense(a), toDense(mp))
		near(t, "a·M", &am, toDense(u), 1e-10)
		dim := tc.c - 1
		vals, w, err := Directions(ctx, WhitenedMeans(u, y, size), mp, tc.n, dim)
		if err != nil {
			t.Fatal(err)
		}
		if tc.p > tc.n { // the small-sample case: no within-class scatter on the span
			for j, v := range vals {
				if v != NoWithin {
					t.Errorf("D > n: λ_%d = %v, want NoWithin", j, v)
				}
			}
			continue
		}
		_, b, sw, err := Scatter(ctx, a, y, size)
		if err != nil {
			t.Fatal(err)
		}
		want, wf, err := Solve(sw, b, dim, 0)
		if err != nil {
			t.Fatal(err)
		}
		Pooled(wf, tc.n)
		for j := range want {
			if math.Abs(vals[j]-want[j]) > 1e-9*want[0] {
				t.Errorf("λ_%d = %v by Directions, %v by Solve", j, vals[j], want[j])
			}
			sign := 1.0
			if mat.Dot(toDense(w).ColView(j), toDense(wf).ColView(j)) < 0 {
				sign = -1
			}
			for i := 0; i < tc.p; i++ {
				if e := math.Abs(sign*w.Data[i*w.Stride+j] - wf.Data[i*wf.Stride+j]); e > 1e-8 {
					t.Fatalf("W[%d,%d] = %v by Directions, %v by Solve", i, j, sign*w.Data[i*w.Stride+j], wf.Data[i*wf.Stride+j])
				}
			}
		}
	}
}

// Rows without variance are ErrNoVariance on both of Whiten's paths.
func TestWhitenNoVariance(t *testing.T) {
	for _, shape := range [][2]int{{5, 3}, {3, 5}} {
		a := dense.New(shape[0], shape[1])
		if _, _, err := Whiten(context.Background(), a); !errors.Is(err, ErrNoVariance) {
			t.Errorf("%d×%d zeros: %v, want ErrNoVariance", shape[0], shape[1], err)
		}
	}
}

// A cancelled context stops the kernels that take one with an error
// wrapping ctx.Err().
func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a, labels := labelled(5, 30, 4, 3)
	wide, _ := labelled(5, 6, 10, 3)
	y, _, size := Classes(labels)
	u, mp, err := Whiten(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	sym := blas64.Symmetric{N: 4, Stride: 4, Uplo: blas.Upper, Data: make([]float64, 16)}
	for i := 0; i < 4; i++ {
		sym.Data[i*4+i] = 1
	}
	for name, f := range map[string]func() error{
		"Scatter":          func() error { _, _, _, err := Scatter(ctx, a, y, size); return err },
		"Whiten":           func() error { _, _, err := Whiten(ctx, a); return err },
		"Whiten (Gram)":    func() error { _, _, err := Whiten(ctx, wide); return err },
		"CovarianceWhiten": func() error { _, err := CovarianceWhiten(ctx, sym); return err },
		"Directions":       func() error { _, _, err := Directions(ctx, WhitenedMeans(u, y, size), mp, 30, 2); return err },
	} {
		if err := f(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want context.Canceled", name, err)
		}
	}
}

func TestFlam(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		// n=5, d=2, c=3: 10 + Syrk(2,5) = 15 + Syrk(2,3) = 9.
		{"ScatterFlam", ScatterFlam(5, 2, 3), 10 + 15 + 9},
		// d=2, c=1, m=1: Potrf 8/6, 4·1, SVD(2,1) = 1.5·2 + 4.5, 4·1.
		{"SolveFlam", SolveFlam(2, 1, 1), 8.0/6 + 4 + 7.5 + 4},
		{"SolveFlam parts", SolveFlam(7, 3, 2), flam.Potrf(7) + 49*3 + flam.SVD(7, 3) + 49*2},
	} {
		if d := c.got - c.want; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}
