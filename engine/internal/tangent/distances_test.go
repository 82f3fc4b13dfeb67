package tangent

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/dense"
)

// TD in closed form: each centre's k neighbours lie exactly on a line or a
// plane through it, so its tangent space is that line or plane and TD(i, y)
// is the distance from y to it, ‖r − Σ_c (r·e_c)e_c‖ with r = y − x_i and
// e_c an orthonormal basis of the directions made here by Gram–Schmidt.
// Lines and planes in 3 and 6 features, with k < D (Spaces' Gram branch)
// and k ≥ D (its covariance branch).
func TestDistancesClosedForm(t *testing.T) {
	for _, c := range []struct{ d, k, t int }{{3, 2, 1}, {3, 4, 2}, {6, 3, 2}, {6, 8, 1}} {
		rng := rand.New(rand.NewPCG(uint64(c.d), uint64(c.k)))
		const centres, queries = 5, 7
		// Rows: the centres, then each centre's k neighbours.
		x := dense.New(centres*(1+c.k), c.d)
		nb := &neighbors.Result{Ptr: []int{0}}
		basis := make([][][]float64, centres)
		for i := 0; i < centres; i++ {
			xi := x.Data[i*c.d : (i+1)*c.d]
			for a := range xi {
				xi[a] = 3 * rng.NormFloat64()
			}
			dirs := make([][]float64, c.t)
			for e := range dirs {
				dirs[e] = make([]float64, c.d)
				for a := range dirs[e] {
					dirs[e][a] = rng.NormFloat64()
				}
			}
			basis[i] = gramSchmidt(dirs)
			for r := 0; r < c.k; r++ {
				j := centres + i*c.k + r
				row := x.Data[j*c.d : (j+1)*c.d]
				copy(row, xi)
				for _, e := range dirs {
					s := 2 * rng.NormFloat64()
					for a := range row {
						row[a] += s * e[a]
					}
				}
				nb.Ind = append(nb.Ind, j)
				nb.Dist = append(nb.Dist, 0)
			}
			nb.Ptr = append(nb.Ptr, len(nb.Ind))
		}
		p, err := Spaces(context.Background(), x, nb, c.t, blas64.General{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		xc := blas64.General{Rows: centres, Cols: c.d, Stride: c.d, Data: x.Data[:centres*c.d]}
		anchor := Anchors(xc, p, c.t)
		y := dense.New(queries, c.d)
		for a := range y.Data {
			y.Data[a] = 3 * rng.NormFloat64()
		}
		dst := dense.New(centres, queries)
		if err := Distances(context.Background(), dst, xc, y, p, anchor, c.t, nil); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < centres; i++ {
			for j := 0; j < queries; j++ {
				r := make([]float64, c.d)
				for a := range r {
					r[a] = y.Data[j*c.d+a] - xc.Data[i*c.d+a]
				}
				for _, e := range basis[i] {
					s := dot(r, e)
					for a := range r {
						r[a] -= s * e[a]
					}
				}
				want := math.Sqrt(dot(r, r))
				if got := dst.Data[i*dst.Stride+j]; math.Abs(got-want) > 1e-10*(1+want) {
					t.Errorf("D=%d k=%d t=%d: TD(%d, %d) = %v, want %v", c.d, c.k, c.t, i, j, got, want)
				}
			}
		}
	}
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// gramSchmidt returns an orthonormal basis of the span of v.
func gramSchmidt(v [][]float64) [][]float64 {
	var out [][]float64
	for _, w := range v {
		e := append([]float64(nil), w...)
		for _, o := range out {
			s := dot(e, o)
			for a := range e {
				e[a] -= s * o[a]
			}
		}
		nrm := math.Sqrt(dot(e, e))
		for a := range e {
			e[a] /= nrm
		}
		out = append(out, e)
	}
	return out
}

// The Gram path gives the products path's TD to rounding (their squares
// within 1e-10 of the squared radius: both are differences of squares of
// that size) on 600 points of 12 features, k = 6 < D, tangent spaces of 2
// and 3 dimensions; TD(i, i) is 0; no TD exceeds the Euclidean distance.
// 600 points: more than one block of 256 rows (DistancesGram) and of
// Block(t) tangent spaces (Distances).
func TestDistancesGramEqualsProducts(t *testing.T) {
	const n, d, k = 600, 12, 6
	x := curved(n, d, 11)
	nb := randomNeighbours(n, k, 12)
	g := gram(x)
	r2 := Radius(x) * Radius(x)
	for _, tt := range []int{2, 3} {
		coef := dense.New(n, tt*k)
		p, err := Spaces(context.Background(), x, nb, tt, coef, nil)
		if err != nil {
			t.Fatal(err)
		}
		viaGram, viaProducts := dense.New(n, n), dense.New(n, n)
		if err := DistancesGram(context.Background(), viaGram, g, nb, coef, tt, nil); err != nil {
			t.Fatal(err)
		}
		if err := Distances(context.Background(), viaProducts, x, x, p, Anchors(x, p, tt), tt, nil); err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for i := 0; i < n; i++ {
			if v := viaGram.Data[i*n+i]; v != 0 {
				t.Fatalf("t=%d: TD(%d, %d) = %v by the Gram path", tt, i, i, v)
			}
			for j := 0; j < n; j++ {
				a, b := viaGram.Data[i*n+j], viaProducts.Data[i*n+j]
				worst = max(worst, math.Abs(a*a-b*b))
				e := g.Data[i*n+i] + g.Data[j*n+j] - 2*g.Data[i*n+j]
				if b*b > e+1e-10*r2 {
					t.Fatalf("t=%d: TD(%d, %d)² = %v above ‖x_i − x_j‖² = %v", tt, i, j, b*b, e)
				}
			}
		}
		t.Logf("t=%d: largest |TD_gram² − TD_products²| = %.3g (radius² %.3g)", tt, worst, r2)
		if worst > 1e-10*r2 {
			t.Errorf("t=%d: the Gram and products paths differ by %g in TD² (radius² %g)", tt, worst, r2)
		}
	}
}

// A cancelled context stops each kernel between two blocks of work with
// the context's error: cancelled by the first progress report, none
// follows. Progress counts up to the total, one report a block.
func TestCancelAndProgress(t *testing.T) {
	const n, d, k, tt = 1100, 8, 5, 2 // 2 chunks of Spaces, 5 blocks of the distances
	x := curved(n, d, 21)
	nb := randomNeighbours(n, k, 22)
	coef := dense.New(n, tt*k)
	var reports [][2]int64
	record := func(done, total int64) { reports = append(reports, [2]int64{done, total}) }
	p, err := Spaces(context.Background(), x, nb, tt, coef, record)
	if err != nil {
		t.Fatal(err)
	}
	if want := steps(1024, n); !slices.Equal(reports, want) {
		t.Errorf("Spaces reported %v, want %v", reports, want)
	}
	anchor := Anchors(x, p, tt)
	g := gram(x)
	reports = nil
	if err := Distances(context.Background(), dense.New(n, n), x, x, p, anchor, tt, record); err != nil {
		t.Fatal(err)
	}
	if want := steps(Block(tt), n); !slices.Equal(reports, want) {
		t.Errorf("Distances reported %v, want %v", reports, want)
	}
	reports = nil
	if err := DistancesGram(context.Background(), dense.New(n, n), g, nb, coef, tt, record); err != nil {
		t.Fatal(err)
	}
	if want := steps(256, n); !slices.Equal(reports, want) {
		t.Errorf("DistancesGram reported %v, want %v", reports, want)
	}

	for name, run := range map[string]func(ctx context.Context, progress func(done, total int64)) error{
		"Spaces": func(ctx context.Context, progress func(done, total int64)) error {
			_, err := Spaces(ctx, x, nb, tt, blas64.General{}, progress)
			return err
		},
		"Distances": func(ctx context.Context, progress func(done, total int64)) error {
			return Distances(ctx, dense.New(n, n), x, x, p, anchor, tt, progress)
		},
		"DistancesGram": func(ctx context.Context, progress func(done, total int64)) error {
			return DistancesGram(ctx, dense.New(n, n), g, nb, coef, tt, progress)
		},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		calls := 0
		err := run(ctx, func(done, total int64) { calls++; cancel() })
		if !errors.Is(err, context.Canceled) || calls != 1 {
			t.Errorf("%s cancelled at its first report: %v after %d reports, want context.Canceled after 1", name, err, calls)
		}
		if err := run(ctx, nil); !errors.Is(err, context.Canceled) {
			t.Errorf("%s under a cancelled context: %v", name, err)
		}
	}
}

// steps are the reports of blocks of step units up to n: step, 2·step, …, n.
func steps(step, n int) [][2]int64 {
	var out [][2]int64
	for e := step; ; e += step {
		out = append(out, [2]int64{int64(min(e, n)), int64(n)})
		if e >= n {
			return out
		}
	}
}
