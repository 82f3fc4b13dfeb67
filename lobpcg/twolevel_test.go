package lobpcg_test

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/lobpcg"
	"github.com/manifoldlab/manifold/sparse"
)

// TwoLevel's Apply against T = Z·(Zᵀ·B·Z)⁺·Zᵀ + D⁻¹ formed densely (the
// pseudo-inverse from gonum's eigendecomposition), for a path's Laplacian
// (the coarse matrix's null space is the constant alone: the Cholesky
// way) and for two disconnected paths (a null space of dimension 2: the
// eigendecomposition's way), Z averaging aggregates of 5 nodes.
func TestTwoLevelApply(t *testing.T) {
	for _, paths := range []int{1, 2} {
		const per, agg = 20, 5
		n, l := paths*per, paths*per/agg
		bc := sparse.NewCOO(n, n, 4*n)
		for p := 0; p < paths; p++ {
			for i := p * per; i+1 < (p+1)*per; i++ {
				bc.Add(i, i+1, -1)
				bc.Add(i+1, i, -1)
				bc.Add(i, i, 1)
				bc.Add(i+1, i+1, 1)
			}
		}
		b := mat.DenseCopyOf(bc.ToCSR().ToDense())
		zc := sparse.NewCOO(n, l, n)
		for i := 0; i < n; i++ {
			zc.Add(i, i/agg, 1)
		}
		z := zc.ToCSR()
		zd := z.ToDense()
		var zbz mat.Dense
		zbz.Product(zd.T(), b, zd)
		am := blas64.General{Rows: l, Cols: l, Stride: l, Data: append([]float64(nil), zbz.RawMatrix().Data...)}
		d := make([]float64, n)
		for i := range d {
			d[i] = b.At(i, i)
		}
		pre, err := lobpcg.NewTwoLevel(context.Background(), z, am, d, 3)
		if err != nil {
			t.Fatal(err)
		}
		// The dense T.
		var es mat.EigenSym
		es.Factorize(mat.NewSymDense(l, zbz.RawMatrix().Data), true)
		w := es.Values(nil)
		var v mat.Dense
		es.VectorsTo(&v)
		pinv := mat.NewDense(l, l, nil)
		for j, lam := range w {
			if lam > 1e-12*w[l-1] {
				col := mat.Col(nil, j, &v)
				var outer mat.Dense
				outer.Outer(1/lam, mat.NewVecDense(l, col), mat.NewVecDense(l, col))
				pinv.Add(pinv, &outer)
			}
		}
		var tm mat.Dense
		tm.Product(zd, pinv, zd.T())
		for i := 0; i < n; i++ {
			tm.Set(i, i, tm.At(i, i)+1/d[i])
		}
		src := blas64.General{Rows: n, Cols: 3, Stride: 3, Data: make([]float64, 3*n)}
		for i := range src.Data {
			src.Data[i] = math.Sin(float64(7*i) + 1)
		}
		dst := blas64.General{Rows: n, Cols: 3, Stride: 3, Data: make([]float64, 3*n)}
		if err := pre.Apply(context.Background(), dst, src); err != nil {
			t.Fatal(err)
		}
		var want mat.Dense
		want.Product(&tm, mat.NewDense(n, 3, src.Data))
		worst, scale := 0.0, 0.0
		for i := 0; i < n; i++ {
			for j := 0; j < 3; j++ {
				worst = max(worst, math.Abs(dst.Data[i*3+j]-want.At(i, j)))
				scale = max(scale, math.Abs(want.At(i, j)))
			}
		}
		if worst > 1e-10*scale {
			t.Errorf("%d path(s): T·x differs from the dense T·x by %.3g (largest entry %.3g)", paths, worst, scale)
		}
	}
}
