package metrics

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/sparse"
)

// ResidualVariance is the residual variance of Tenenbaum, de Silva & Langford
// ("A global geometric framework for nonlinear dimensionality reduction",
// Science 290, 2000, Fig. 2 and note 22): 1 − R²(D̂_M, D_Y), where R is
// the linear correlation coefficient between the entries of the manifold's
// distance matrix D̂_M (the graph geodesics D_G for Isomap) and those of
// the Euclidean distances D_Y between the embedded points y (n×d). As the
// authors' Isomap.m computes it, the correlation runs over all n² entries
// of the two matrices (both triangles and the zero diagonal). 0 means the
// embedding's distances are an exact affine function of dg's.
//
// dg is n×n; it is read entry by entry and D_Y is never formed (O(n²·d)
// time, O(n) memory). A constant dg or D_Y has no correlation and is an
// error, as are infinite geodesics (a disconnected graph).
func ResidualVariance(dg, y mat.Matrix) (float64, error) {
	n, c := dg.Dims()
	if n != c || n < 2 {
		return 0, fmt.Errorf("%w: distance matrix is %d×%d", ErrInput, n, c)
	}
	gy, err := denseRows(y)
	if err != nil {
		return 0, err
	}
	if gy.Rows != n {
		return 0, fmt.Errorf("%w: %d×%d distances for %d embedded points", ErrInput, n, n, gy.Rows)
	}
	var raw blas64.General
	if m, ok := dg.(interface{ RawMatrix() blas64.General }); ok {
		raw = m.RawMatrix()
	}
	row := make([]float64, n)
	// Shifted sums (about the first off-diagonal values) keep the
	// correlation accurate when the distances are large and close together.
	var sa, sb, saa, sbb, sab float64
	a0, b0 := math.NaN(), math.NaN()
	for i := 0; i < n; i++ {
		sqDistRow(row, gy, i)
		for j := 0; j < n; j++ {
			var a float64
			if raw.Data != nil {
				a = raw.Data[i*raw.Stride+j]
			} else {
				a = dg.At(i, j)
			}
			if math.IsNaN(a) || math.IsInf(a, 0) {
				return 0, fmt.Errorf("%w: distance (%d, %d) is %v", ErrInput, i, j, a)
			}
			b := math.Sqrt(row[j])
			if math.IsNaN(a0) {
				a0, b0 = a, b
			}
			a, b = a-a0, b-b0
			sa += a
			sb += b
			saa += a * a
			sbb += b * b
			sab += a * b
		}
	}
	m := float64(n) * float64(n)
	va := saa - sa*sa/m
	vb := sbb - sb*sb/m
	if va <= 0 || vb <= 0 {
		return 0, fmt.Errorf("%w: constant distances have no correlation", ErrInput)
	}
	r := (sab - sa*sb/m) / math.Sqrt(va*vb)
	return 1 - r*r, nil
}

// Geodesics returns the n×n graph geodesic distances D_G between the rows
// of x as Isomap measures them: shortest paths (Dijkstra) in the k-nearest-
// neighbour graph (OR rule, edges weighted by their Euclidean length). A
// disconnected graph is an error naming its components. Memory: the n×n
// result.
func Geodesics(ctx context.Context, x mat.Matrix, k int) (*mat.Dense, error) {
	g, err := denseRows(x)
	if err != nil {
		return nil, err
	}
	var xm mat.Dense
	xm.SetRawMatrix(g)
	graph, err := neighbors.Graph(ctx, &xm, neighbors.GraphOptions{K: k})
	if err != nil {
		return nil, err
	}
	if err := sparse.CheckConnected(graph); err != nil {
		return nil, err
	}
	n := g.Rows
	out := mat.NewDense(n, n, nil)
	if err := sparse.AllPairsShortestPaths(ctx, graph, out.RawMatrix(), sparse.PathOptions{}); err != nil {
		return nil, err
	}
	return out, nil
}
