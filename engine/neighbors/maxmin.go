package neighbors

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/engine/internal/principal"
	"github.com/manifoldlab/manifold/sparse"
)

// MaxMin picks l rows greedily, first the row first, then each time the
// row farthest from those chosen, ties to the lower index (Gonzalez,
// Theoretical Computer Science 38, 1985; the landmarks of de Silva &
// Tenenbaum, NIPS 2002), among the dense rows x or, when sp is not nil,
// the sparse rows sp (x is then not read). It returns the rows in the
// order chosen, fewer than l when every row lies at distance 0 from a
// choice (fewer distinct rows than l). It checks ctx before each choice
// and between chunks of rows.
//
// The squared distances to each new choice are computed directly, in
// parallel over fixed chunks of rows, but only for the rows the new
// choice can be nearer to: a row whose nearest choice a lies at distance
// r from it cannot be nearer to a new choice q unless ‖q − a‖ < 2r (the
// triangle inequality; Elkan, ICML 2003, prunes k-means' assignments the
// same way), so a row is skipped when ‖q − a‖ exceeds 2r by a relative
// margin far above rounding, and the choices are those of computing every
// distance. Each pass reads the rows' nearest choices and distances (12
// bytes a row) and the rows not skipped: O(l·N) plus the distances
// computed, at most O(l·N·D). Dense rows of many features whose variance
// lies in few directions are also skipped by a lower bound of the
// distance from their principal coordinates (projBound, p ≤ D/2 values a
// row, where its set-up pays: boundPays; its memory: MaxMinBytes), which
// leaves the same choices.
func MaxMin(ctx context.Context, x blas64.General, sp *sparse.CSR, l, first int) ([]int, error) {
	if sp != nil {
		return maxMinBounded(ctx, x, sp, l, first, false)
	}
	return maxMinBounded(ctx, x, nil, l, first, boundPays(x.Rows, x.Cols, l))
}

// maxMinBounded is MaxMin with the principal-coordinate bound where
// useBound says so and the rows allow it (newProjBound; dense rows), or
// without it. Sparse rows' distances are sparse.SqDist's, bit for bit the
// dense rows': the same choices.
func maxMinBounded(ctx context.Context, x blas64.General, sp *sparse.CSR, l, first int, useBound bool) ([]int, error) {
	n, d := x.Rows, x.Cols
	if sp != nil {
		n, d = sp.Dims()
	}
	closest := make([]float64, n) // squared distance to the nearest landmark
	owner := make([]int32, n)     // which landmark (its position in idx)
	for i := range closest {
		closest[i] = math.Inf(1)
	}
	const grain = 4096
	const margin = 1 + 1e-6 // skip only when ‖q − a‖ > 2r·margin
	chunks := (n + grain - 1) / grain
	bestI := make([]int, chunks)
	bestD := make([]float64, chunks)
	idx := []int{first}
	// A point is also skipped when a lower bound of its distance to the
	// new landmark from principal coordinates (projBound) reaches its
	// nearest landmark's: the same choices again, fewer rows read.
	var bound *projBound
	if useBound {
		var err error
		if bound, err = newProjBound(ctx, x); err != nil {
			return nil, err
		}
	}
	// gap[a]: ‖q − landmark a‖ for the new landmark q, halved and shrunk
	// by the margin: a point owned by a is skipped when gap[a]² > r².
	var gap []float64
	// One sum in coordinate order, as sparse.SqDist sums the sparse rows
	// (the same choices either way), not the package's sqDist (four
	// partial sums).
	seqSqDist := func(a, b []float64) float64 {
		s := 0.0
		for j, v := range a {
			t := v - b[j]
			s += t * t
		}
		return s
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		last := len(idx) - 1
		qi := idx[last]
		var q []float64 // the new landmark's row: dense, or its entries
		var qc []int
		if sp != nil {
			qc, q = sp.Row(qi)
		} else {
			q = x.Data[qi*x.Stride : qi*x.Stride+d]
		}
		gap = gap[:0]
		for _, a := range idx[:last] {
			var s float64
			if sp != nil {
				ac, av := sp.Row(a)
				s = sparse.SqDist(qc, q, ac, av)
			} else {
				s = seqSqDist(q, x.Data[a*x.Stride:a*x.Stride+d])
			}
			g := math.Sqrt(s) / (2 * margin)
			gap = append(gap, g*g)
		}
		// ctx is checked between chunks too: the first passes read every
		// row (a second or more at 10⁶ rows of 256 features).
		err := backend.ParallelForCtx(ctx, n, grain, func(lo, hi int) {
			bi, bd := lo, -1.0
			for i := lo; i < hi; i++ {
				if c := closest[i]; last == 0 || (gap[owner[i]] <= c && (bound == nil || !bound.atLeast(i, qi, c))) {
					var s float64
					if sp != nil {
						ic, iv := sp.Row(i)
						s = sparse.SqDist(ic, iv, qc, q)
					} else {
						s = seqSqDist(x.Data[i*x.Stride:i*x.Stride+d], q)
					}
					if s < c {
						closest[i], owner[i] = s, int32(last)
					}
				}
				if closest[i] > bd {
					bi, bd = i, closest[i]
				}
			}
			bestI[lo/grain], bestD[lo/grain] = bi, bd
		})
		if err != nil {
			return nil, err
		}
		far, fd := 0, -1.0
		for c := range bestI {
			if bestD[c] > fd {
				far, fd = bestI[c], bestD[c]
			}
		}
		if len(idx) == l || fd <= 0 {
			return idx, nil
		}
		idx = append(idx, far)
	}
}

// projBound gives lower bounds of the distances between rows from their
// coordinates on a few principal axes: with z = Aᵀ(x − μ) (A the d × p
// leading eigenvectors of the rows' covariance, orthonormal) and r the
// residual (x − μ) − A·z, ‖x − y‖² = ‖z_x − z_y‖² + ‖r_x − r_y‖² ≥
// ‖z_x − z_y‖² + (‖r_x‖ − ‖r_y‖)². The coordinates are kept in float32 (p
// values a row, a small fraction of the row when the variance lies in few
// directions, as for images), the norms in float64; the bound is shrunk by
// margins far above the rounding of both (see below), so that it never
// exceeds the exact distance a caller compares it with. This is the
// filter of similarity search by the leading principal subspace
// (Faloutsos, Ranganathan & Manolopoulos, SIGMOD 1994) with the residual
// norms added.
type projBound struct {
	p  int
	z  []float32 // rows × p
	rn []float64 // ‖r_i‖
	en []float64 // ‖x_i − μ‖: the scale of the rounding margins
}

const (
	// boundMinDim: narrower rows are compared directly.
	boundMinDim = 32
	// boundMinRows and boundMinLandmarks: below either, the max-min
	// choice is cheap and goes without the bound.
	boundMinRows, boundMinLandmarks = 2048, 16
	// boundVariance is the share of the sample's variance the axes keep;
	// when that takes more than half the features, no bound
	// (principal.Axes). Fewer axes read less a pass and bound less
	// tightly; measured on the max-min
	// choice of 1000 landmarks among 200,000 deformed USPS digits (256
	// pixels; 34.0 s without the bound): 0.6 (12 axes) 19.5 s, 0.7 (20)
	// 12.3 s, 0.8 (28) 10.0 s, 0.85 (36) 9.7 s, 0.9 (48) 10.2 s, 0.95
	// (72) 12.3 s, 0.98 (112) 18.4 s.
	boundVariance = 0.85
)

// boundPays reports whether the max-min choice of l landmarks among n rows
// of d features builds the bound: rows wide enough, enough rows and
// landmarks, and the bound's set-up (the principal axes of a sample:
// principal.SetupFlam) below a tenth of the distances it could spare, l·n·d
// flam. On 200,000 digits of 256 pixels and 1000 landmarks the set-up is
// 0.6 % of them; on 8293 documents of 18,933 terms and 300 landmarks it
// would be over 200 times them (and principal.Axes refuses rows that wide).
func boundPays(n, d, l int) bool {
	if d < boundMinDim || d > principal.MaxDim || n < boundMinRows || l < boundMinLandmarks {
		return false
	}
	return principal.SetupFlam(n, d) < 0.1*float64(l)*float64(n)*float64(d)
}

// MaxMinBytes bounds the memory of MaxMin's bound for l choices among n
// dense rows of d features: the principal axes' set-up (the sample and
// its covariance: principal.SetupBytes) and at most d/2 float32
// coordinates and two norms a row, or 0 when boundPays says no bound.
// MaxMin holds 12 bytes a row besides.
func MaxMinBytes(n, d, l int) int64 {
	if !boundPays(n, d, l) {
		return 0
	}
	return principal.SetupBytes(n, d) + int64(n)*(4*int64(d/2)+16)
}

// newProjBound returns the bound for the rows of x, or nil when the rows
// are too narrow or their variance too spread out for it to pay.
// Deterministic: the same rows give the same bound on any number of
// goroutines.
func newProjBound(ctx context.Context, x blas64.General) (*projBound, error) {
	n, d := x.Rows, x.Cols
	if d < boundMinDim || n < 2 {
		return nil, nil
	}
	row := func(i int, _ []float64) []float64 { return x.Data[i*x.Stride : i*x.Stride+d] }
	axes, mean, err := principal.Axes(ctx, n, d, row, boundVariance)
	if err != nil || axes.Rows == 0 {
		return nil, err
	}
	p := axes.Cols
	b := &projBound{p: p, z: make([]float32, n*p), rn: make([]float64, n), en: make([]float64, n)}
	err = principal.Project(ctx, n, row, axes, mean, func(r int, centred, z []float64) {
		e := 0.0
		for _, v := range centred {
			e += v * v
		}
		b.en[r] = math.Sqrt(e)
		zr := 0.0
		for a, v := range z {
			b.z[r*p+a] = float32(v)
			zr += v * v
		}
		b.rn[r] = math.Sqrt(max(0, e-zr))
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// atLeast reports whether the squared distance of rows i and j is
// certainly at least c. Margins: the float32 coordinates and their differences carry
// relative errors of 6e-8 of the coordinates (at most ‖x − μ‖), the
// float32 sum of p squares a relative 6e-8·p, and ‖r‖ from
// ‖x − μ‖² − ‖z‖² an absolute 5e-8·‖x − μ‖ at worst (the axes
// orthonormal to about 1e-15): the distance of each part is lowered by
// 1e-6·(‖x_i − μ‖ + ‖x_j − μ‖) and the coordinates' sum by a relative
// 1e-5, several times those.
func (b *projBound) atLeast(i, j int, c float64) bool {
	p := b.p
	zi, zj := b.z[i*p:(i+1)*p], b.z[j*p:(j+1)*p]
	var s float32
	for t, v := range zi {
		w := v - zj[t]
		s += w * w
	}
	e := 1e-6 * (b.en[i] + b.en[j])
	a := max(0, math.Sqrt(float64(s)*(1-1e-5))-e)
	r := max(0, math.Abs(b.rn[i]-b.rn[j])-e)
	return a*a+r*r >= c
}
