package tall

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
)

// The tall, narrow products equal a general product (gonum's) to rounding,
// for widths on either side of the vector and four-column special cases,
// strided operands, rows past one chunk, and both betas.
func TestTallProductsMatchGemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	fill := func(rows, cols, stride int) blas64.General {
		g := blas64.General{Rows: rows, Cols: cols, Stride: stride, Data: make([]float64, rows*stride)}
		for i := range g.Data {
			g.Data[i] = rng.NormFloat64()
		}
		return g
	}
	var ref gonum.Implementation
	for _, n := range []int{1, 7, Chunk + 3, 3*Chunk - 1} {
		for _, l := range []int{1, 2, 3, 4, 5, 9, 70} {
			for _, p := range []int{1, 2, 5} {
				x := fill(n, l, l+2)
				y := fill(n, p, p+1)
				c := fill(l, p, p)
				want := fill(l, p, p)
				TN(x, y, c)
				ref.Dgemm(blas.Trans, blas.NoTrans, l, p, n, 1, x.Data, x.Stride, y.Data, y.Stride, 0, want.Data, want.Stride)
				if d := maxDiff(c.Data, want.Data); d > 1e-12*float64(n) {
					t.Errorf("TN n=%d l=%d p=%d: differs by %g", n, l, p, d)
				}
				for _, beta := range []float64{0, 1} {
					tm := fill(l, p, p+3)
					got := fill(n, p, p+1)
					exp := blas64.General{Rows: n, Cols: p, Stride: got.Stride, Data: append([]float64(nil), got.Data...)}
					NN(-0.5, x, tm, beta, got)
					ref.Dgemm(blas.NoTrans, blas.NoTrans, n, p, l, -0.5, x.Data, x.Stride, tm.Data, tm.Stride, beta, exp.Data, exp.Stride)
					for i := range n {
						if d := maxDiff(got.Data[i*got.Stride:i*got.Stride+p], exp.Data[i*exp.Stride:i*exp.Stride+p]); d > 1e-12*float64(l) {
							t.Fatalf("NN n=%d l=%d p=%d beta=%g: row %d differs by %g", n, l, p, beta, i, d)
						}
					}
				}
			}
		}
	}
}

func maxDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// UnitColumns scales nonzero columns to unit norm and leaves a zero column
// zero.
func TestUnitColumns(t *testing.T) {
	q := blas64.General{Rows: 3, Cols: 3, Stride: 4, Data: []float64{
		3, 0, 1, 9,
		4, 0, 1, 9,
		0, 0, 1, 9,
	}}
	UnitColumns(q)
	want := []float64{0.6, 0, 1 / math.Sqrt(3), 9, 0.8, 0, 1 / math.Sqrt(3), 9, 0, 0, 1 / math.Sqrt(3), 9}
	for i, v := range want {
		if math.Abs(q.Data[i]-v) > 1e-15 {
			t.Fatalf("entry %d = %v, want %v", i, q.Data[i], v)
		}
	}
}
