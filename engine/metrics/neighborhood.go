package metrics

import (
	"context"
	"fmt"
	"sort"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/engine/neighbors"
)

// Trustworthiness measures how far an embedding can be trusted to show true
// neighbours (Venna & Kaski, "Neighborhood preservation in nonlinear
// projection methods: an experimental study", ICANN 2001, and "Local
// multidimensional scaling", Neural Networks 19, 2006): with U_k(i) the
// points among the k nearest neighbours of i in the embedding y that are
// not among its k nearest in the data x, and r(i, j) the rank of j among
// the neighbours of i in x (1 for the nearest),
//
//	T(k) = 1 − 2/(n·k·(2n − 3k − 1)) · Σ_i Σ_{j∈U_k(i)} (r(i, j) − k).
//
// T = 1 when every embedded neighbourhood holds only true neighbours. It
// equals scikit-learn's sklearn.manifold.trustworthiness (Euclidean
// distances); k must satisfy 1 ≤ k < n/2, as there. Distance ties are
// broken by the lower index (scikit-learn leaves them to numpy's unstable
// sort). x and y have the same rows; x is read densely.
//
// Cost: the k-nearest-neighbour search in y and, for every point, its
// distances to all others in x (n²·D flam in all, exact differences, in
// parallel) and a binary search of each among the k embedded neighbours'
// distances: O(n²·(D + log k)) time and O(n·(D + k)) memory — no n×n
// matrix, so it runs at any n the embedding does.
func Trustworthiness(ctx context.Context, x, y mat.Matrix, k int) (float64, error) {
	gx, err := denseRows(x)
	if err != nil {
		return 0, err
	}
	gy, err := denseRows(y)
	if err != nil {
		return 0, err
	}
	n := gx.Rows
	if gy.Rows != n {
		return 0, fmt.Errorf("%w: %d data rows, %d embedded rows", ErrInput, n, gy.Rows)
	}
	if k < 1 || 2*k >= n {
		return 0, fmt.Errorf("%w: k = %d neighbours for %d points (need 1 ≤ k < n/2)", ErrInput, k, n)
	}
	var ym mat.Dense
	ym.SetRawMatrix(gy)
	nb, err := neighbors.KNN(ctx, &ym, k, neighbors.Options{})
	if err != nil {
		return 0, err
	}
	penalty := make([]float64, n)
	err = backend.ParallelForCtx(ctx, n, max(1, 1<<16/max(1, n)), func(lo, hi int) {
		d := make([]float64, n)
		type thr struct {
			t float64
			j int
		}
		ts := make([]thr, k)
		below := make([]int, k+1)
		tied := make([]int, k) // l with d_l = t_q and l < j_q
		for i := lo; i < hi; i++ {
			sqDistRow(d, gx, i)
			ind, _ := nb.Row(i)
			for q, j := range ind {
				ts[q] = thr{d[j], j}
			}
			sort.Slice(ts, func(a, b int) bool {
				if ts[a].t != ts[b].t {
					return ts[a].t < ts[b].t
				}
				return ts[a].j < ts[b].j
			})
			clear(below)
			clear(tied)
			for l, v := range d {
				if l == i {
					continue
				}
				// Thresholds q ≥ pos are strictly above v: l ranks before them.
				pos := sort.Search(k, func(q int) bool { return ts[q].t > v })
				below[pos]++
				for q := pos - 1; q >= 0 && ts[q].t == v; q-- {
					if l < ts[q].j {
						tied[q]++
					}
				}
			}
			p := 0.0
			acc := 0
			for q := 0; q < k; q++ {
				acc += below[q]
				// rank = 1 + #{l: d_l < t_q} + #{l: d_l = t_q, l < j_q}
				if r := 1 + acc + tied[q]; r > k {
					p += float64(r - k)
				}
			}
			penalty[i] = p
		}
	})
	if err != nil {
		return 0, err
	}
	t := 0.0
	for _, p := range penalty {
		t += p
	}
	nf, kf := float64(n), float64(k)
	return 1 - t*2/(nf*kf*(2*nf-3*kf-1)), nil
}

// Continuity is the counterpart of Trustworthiness (Venna & Kaski 2001,
// 2006): it penalizes the true neighbours of a point (its k nearest in x)
// that the embedding y moves out of its k nearest, by their rank in the
// embedding:
//
//	C(k) = 1 − 2/(n·k·(2n − 3k − 1)) · Σ_i Σ_{j∈V_k(i)} (r̂(i, j) − k),
//
// V_k(i) the data neighbours of i that are not embedded neighbours and
// r̂(i, j) the rank of j among the neighbours of i in y. It is
// Trustworthiness with the roles of x and y swapped, Trustworthiness(y, x, k)
// — which is how it is computed, and how scikit-learn users compute it.
func Continuity(ctx context.Context, x, y mat.Matrix, k int) (float64, error) {
	return Trustworthiness(ctx, y, x, k)
}

// sqDistRow sets d[j] = ‖x_i − x_j‖² for every row j of x, by exact
// differences (no cancellation, so ties and order match a direct
// computation).
func sqDistRow(d []float64, x blas64.General, i int) {
	c := x.Cols
	xi := x.Data[i*x.Stride : i*x.Stride+c]
	for j := range d {
		xj := x.Data[j*x.Stride : j*x.Stride+c]
		s := 0.0
		for t, v := range xi {
			e := v - xj[t]
			s += e * e
		}
		d[j] = s
	}
}
