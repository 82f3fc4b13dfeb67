package backend

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

func randGeneral(r, c int, seed uint64) blas64.General {
	rng := rand.New(rand.NewPCG(seed, 9))
	g := blas64.General{Rows: r, Cols: c, Stride: c, Data: make([]float64, r*c)}
	for i := range g.Data {
		g.Data[i] = rng.NormFloat64()
	}
	return g
}

func maxDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// GemmCtx and SyrkCtx, in panels, give what one Gemm or Syrk gives (to
// rounding), for every transposition and triangle; cancelled, they stop
// with context.Canceled.
func TestProductsCtx(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, impl := range Impls() {
		// Wide enough that the panels are a few rows: 300×4000 data.
		a := randGeneral(300, 4000, 1)
		at := randGeneral(4000, 300, 2)
		for _, tr := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			src := a
			if tr == blas.Trans {
				src = at
			}
			tB := blas.Trans
			if tr == blas.Trans {
				tB = blas.NoTrans
			}
			want := randGeneral(300, 300, 3)
			got := blas64.General{Rows: 300, Cols: 300, Stride: 300, Data: append([]float64(nil), want.Data...)}
			impl.Gemm(tr, tB, 0.5, src, src, 0.25, want)
			if err := GemmCtx(ctx, impl, tr, tB, 0.5, src, src, 0.25, got); err != nil {
				t.Fatal(err)
			}
			if d := maxDiff(got.Data, want.Data); d > 1e-10 {
				t.Errorf("%s GemmCtx %v: differs by %g", impl.Name(), tr, d)
			}
			for _, uplo := range []blas.Uplo{blas.Upper, blas.Lower} {
				ref := randGeneral(300, 300, 4)
				c := append([]float64(nil), ref.Data...)
				impl.Syrk(tr, 2, src, 0.5, blas64.Symmetric{N: 300, Stride: 300, Uplo: uplo, Data: ref.Data})
				if err := SyrkCtx(ctx, impl, tr, 2, src, 0.5, blas64.Symmetric{N: 300, Stride: 300, Uplo: uplo, Data: c}); err != nil {
					t.Fatal(err)
				}
				d := 0.0
				for i := 0; i < 300; i++ {
					for j := 0; j < 300; j++ {
						if (uplo == blas.Upper) == (j >= i) || i == j {
							d = max(d, math.Abs(c[i*300+j]-ref.Data[i*300+j]))
						} else if c[i*300+j] != ref.Data[i*300+j] {
							t.Fatalf("%s SyrkCtx %v %v: wrote outside its triangle at (%d, %d)", impl.Name(), tr, uplo, i, j)
						}
					}
				}
				if d > 1e-10 {
					t.Errorf("%s SyrkCtx %v %v: differs by %g", impl.Name(), tr, uplo, d)
				}
			}
		}
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		c := randGeneral(300, 300, 5)
		if err := GemmCtx(cancelled, impl, blas.NoTrans, blas.Trans, 1, a, a, 0, c); !errors.Is(err, context.Canceled) {
			t.Errorf("%s GemmCtx cancelled: %v", impl.Name(), err)
		}
		if err := SyrkCtx(cancelled, impl, blas.NoTrans, 1, a, 0, blas64.Symmetric{N: 300, Stride: 300, Uplo: blas.Upper, Data: c.Data}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s SyrkCtx cancelled: %v", impl.Name(), err)
		}
		if err := SqDistCtx(cancelled, impl, c, a, a, nil, nil); !errors.Is(err, context.Canceled) {
			t.Errorf("%s SqDistCtx cancelled: %v", impl.Name(), err)
		}
	}
}

// SqDist with many features (tiles of fewer rows than columns) against
// the direct sums, for the self and the two-set cases.
func TestSqDistManyFeatures(t *testing.T) {
	x := randGeneral(90, 6000, 6)
	y := randGeneral(40, 6000, 7)
	for _, impl := range Impls() {
		for _, c := range []struct {
			a, b blas64.General
		}{{x, x}, {x, y}} {
			dst := randGeneral(c.a.Rows, c.b.Rows, 8)
			if err := SqDistCtx(context.Background(), impl, dst, c.a, c.b, nil, nil); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < c.a.Rows; i++ {
				for j := 0; j < c.b.Rows; j++ {
					want := sqDistDirect(c.a.Data[i*c.a.Stride:i*c.a.Stride+c.a.Cols], c.b.Data[j*c.b.Stride:j*c.b.Stride+c.b.Cols])
					if got := dst.Data[i*dst.Stride+j]; math.Abs(got-want) > 1e-9*want {
						t.Fatalf("%s: d(%d, %d) = %v, want %v", impl.Name(), i, j, got, want)
					}
				}
			}
		}
	}
}

// GemmCtx on non-square shapes, op(A) with more rows than A has (Aᵀ of a
// wide A: panels of A's rows would lie outside it), for both
// transpositions of A; C is wide enough for panels of 150 (pure Go) or
// 450 rows (C backend), so later panels start beyond A's 50 rows.
func TestGemmCtxShapes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, impl := range Impls() {
		for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			a := randGeneral(600, 50, 1) // op(A) is 600×50
			if tA == blas.Trans {
				a = randGeneral(50, 600, 1)
			}
			b := randGeneral(50, 4000, 2)
			want := randGeneral(600, 4000, 3)
			got := blas64.General{Rows: 600, Cols: 4000, Stride: 4000, Data: append([]float64(nil), want.Data...)}
			impl.Gemm(tA, blas.NoTrans, 1.5, a, b, -1, want)
			if err := GemmCtx(ctx, impl, tA, blas.NoTrans, 1.5, a, b, -1, got); err != nil {
				t.Fatal(err)
			}
			if d := maxDiff(got.Data, want.Data); d > 1e-10 {
				t.Errorf("%s GemmCtx %v, 600×4000 from k = 50: differs by %g", impl.Name(), tA, d)
			}
		}
	}
}

// countingCtx counts the checks of its Err.
type countingCtx struct {
	context.Context
	checks int
}

func (c *countingCtx) Err() error {
	c.checks++
	return c.Context.Err()
}

// A product whose inner dimension is long (the covariance of many rows,
// k = rows) is cut along k as well as along the output rows: its pieces
// stay near the work bound, where panels of minRows rows over all of k
// would each be the whole bound many times over (the 256-feature
// covariance of 10⁶ rows: 0.5 s a panel, measured as 270 ms to return
// after SIGINT in `manifold embed -method pca`). The result is the one
// product's to rounding, for every transposition, triangle and beta.
func TestProductsCtxLongInner(t *testing.T) {
	t.Parallel()
	const work = 1e5
	for _, impl := range Impls() {
		for _, tr := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			src := randGeneral(20000, 64, 11) // k = 20000 rows
			if tr == blas.NoTrans {
				src = randGeneral(64, 20000, 12) // k = 20000 columns
			}
			flam := 64.0 * 32 * 20000
			for _, uplo := range []blas.Uplo{blas.Upper, blas.Lower} {
				ref := randGeneral(64, 64, 13)
				c := append([]float64(nil), ref.Data...)
				impl.Syrk(tr, 2, src, 0.5, blas64.Symmetric{N: 64, Stride: 64, Uplo: uplo, Data: ref.Data})
				ctx := &countingCtx{Context: context.Background()}
				if err := syrkPieces(ctx, impl, work, tr, 2, src, 0.5, blas64.Symmetric{N: 64, Stride: 64, Uplo: uplo, Data: c}); err != nil {
					t.Fatal(err)
				}
				for i := 0; i < 64; i++ {
					for j := 0; j < 64; j++ {
						inside := (uplo == blas.Upper) == (j >= i) || i == j
						if d := math.Abs(c[i*64+j] - ref.Data[i*64+j]); inside && d > 1e-9*math.Abs(ref.Data[i*64+i]) {
							t.Errorf("%s syrkPieces %v %v: (%d, %d) differs by %g", impl.Name(), tr, uplo, i, j, d)
						} else if !inside && d != 0 {
							t.Fatalf("%s syrkPieces %v %v: wrote outside its triangle at (%d, %d)", impl.Name(), tr, uplo, i, j)
						}
					}
				}
				if ctx.checks < int(flam/work/2) {
					t.Errorf("%s syrkPieces %v %v: %d checks of ctx for %.3g flam in pieces of %g", impl.Name(), tr, uplo, ctx.checks, flam, work)
				}
			}
			tB := flip(tr)
			want := randGeneral(64, 64, 14)
			got := blas64.General{Rows: 64, Cols: 64, Stride: 64, Data: append([]float64(nil), want.Data...)}
			impl.Gemm(tr, tB, 0.5, src, src, -1, want)
			ctx := &countingCtx{Context: context.Background()}
			if err := gemmPieces(ctx, impl, work, tr, tB, 0.5, src, src, -1, got); err != nil {
				t.Fatal(err)
			}
			if d := maxDiff(got.Data, want.Data); d > 1e-9*20000 {
				t.Errorf("%s gemmPieces %v: differs by %g", impl.Name(), tr, d)
			}
			if ctx.checks < int(2*flam/work/2) {
				t.Errorf("%s gemmPieces %v: %d checks of ctx for %.3g flam in pieces of %g", impl.Name(), tr, ctx.checks, 2*flam, work)
			}
		}
		// beta = 0 never reads C: NaN there is overwritten, not kept.
		a := randGeneral(5000, 8, 15)
		c := blas64.Symmetric{N: 8, Stride: 8, Uplo: blas.Upper, Data: make([]float64, 64)}
		for i := range c.Data {
			c.Data[i] = math.NaN()
		}
		if err := syrkPieces(context.Background(), impl, 1e3, blas.Trans, 1, a, 0, c); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 8; i++ {
			for j := i; j < 8; j++ {
				if math.IsNaN(c.Data[i*8+j]) {
					t.Fatalf("%s syrkPieces beta 0: NaN kept at (%d, %d)", impl.Name(), i, j)
				}
			}
		}
	}
}
