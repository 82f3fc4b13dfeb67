package dense_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/internal/dense"
)

func random(r, c int, seed uint64) blas64.General {
	rng := rand.New(rand.NewPCG(seed, seed))
	g := dense.New(r, c)
	for i := range g.Data {
		g.Data[i] = rng.NormFloat64()
	}
	return g
}

// Copies of whole, strided and picked rows are exact; a cancelled context
// stops a long copy with its error.
func TestCopies(t *testing.T) {
	src := random(50, 7, 1)
	if c := dense.Copy(src); c.Stride != 7 || !equal(c, src) {
		t.Error("Copy differs")
	}
	strided := blas64.General{Rows: 50, Cols: 5, Stride: 7, Data: src.Data}
	if c := dense.Copy(strided); c.Stride != 5 || !equal(c, strided) {
		t.Error("Copy of strided rows differs")
	}
	pick := []int{49, 0, 3}
	dst := dense.New(3, 7)
	if err := dense.CopyRowsCtx(context.Background(), dst, src, pick); err != nil {
		t.Fatal(err)
	}
	for i, r := range pick {
		for j := range 7 {
			if dst.Data[i*7+j] != src.Data[r*7+j] {
				t.Fatalf("picked row %d differs from row %d", i, r)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	big := dense.New(3*dense.Piece/8, 8)
	if err := dense.CopyRowsCtx(ctx, dense.New(big.Rows, 8), big, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled copy: %v", err)
	}
}

func equal(a, b blas64.General) bool {
	if a.Rows != b.Rows || a.Cols != b.Cols {
		return false
	}
	for i := range a.Rows {
		for j := range a.Cols {
			if a.Data[i*a.Stride+j] != b.Data[i*b.Stride+j] {
				return false
			}
		}
	}
	return true
}

// UpperTiles visits every entry of the upper triangle once; GramUpper
// equals X·Xᵀ; Symmetrize and MirrorUpper give symmetric matrices with the
// expected entries.
func TestTrianglesAndGram(t *testing.T) {
	for _, n := range []int{1, 63, 64, 65, 200} {
		var seen = make([]atomic.Int32, n*n)
		if err := dense.UpperTiles(context.Background(), n, func(row, i0, i1, j0, j1 int) {
			if i0 != row*dense.Tile || j0 < i0 {
				t.Errorf("tile (%d, %d) in row %d", i0, j0, row)
			}
			for i := i0; i < i1; i++ {
				for j := max(i, j0); j < j1; j++ {
					seen[i*n+j].Add(1)
				}
			}
		}); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			for j := i; j < n; j++ {
				if c := seen[i*n+j].Load(); c != 1 {
					t.Fatalf("n=%d: (%d, %d) visited %d times", n, i, j, c)
				}
			}
		}
		x := random(n, 9, uint64(n))
		g := dense.New(n, n)
		if err := dense.GramUpper(context.Background(), x, g); err != nil {
			t.Fatal(err)
		}
		var want mat.Dense
		xm := mat.NewDense(n, 9, x.Data)
		want.Mul(xm, xm.T())
		if !mat.EqualApprox(mat.NewDense(n, n, g.Data), &want, 1e-12) {
			t.Errorf("n=%d: GramUpper differs from X·Xᵀ", n)
		}
	}
	a := blas64.General{Rows: 2, Cols: 2, Stride: 2, Data: []float64{1, 2, 4, 3}}
	dense.Symmetrize(a)
	if a.Data[1] != 3 || a.Data[2] != 3 || a.Data[0] != 1 || a.Data[3] != 3 {
		t.Errorf("Symmetrize: %v", a.Data)
	}
	b := blas64.General{Rows: 2, Cols: 2, Stride: 2, Data: []float64{1, 2, 4, 3}}
	dense.MirrorUpper(b)
	if b.Data[2] != 2 {
		t.Errorf("MirrorUpper: %v", b.Data)
	}
}

// SymQuadForm equals Aᵀ(τA) over several row blocks of τ.
func TestSymQuadForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 255, 256, 600} {
		const d = 7
		tau := mat.NewDense(n, n, nil)
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				v := rng.NormFloat64()
				tau.Set(i, j, v)
				tau.Set(j, i, v)
			}
		}
		a := mat.NewDense(n, d, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < d; j++ {
				a.Set(i, j, rng.NormFloat64())
			}
		}
		var want mat.Dense
		want.Product(a.T(), tau, a)
		want.Scale(-2, &want)
		got := dense.New(d, d)
		if err := dense.SymQuadForm(context.Background(), -2, tau.RawMatrix(), a.RawMatrix(), got); err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(mat.NewDense(d, d, got.Data), &want, 1e-10*float64(n)) {
			t.Errorf("n = %d: SymQuadForm differs from −2·Aᵀ(τA)", n)
		}
	}
}

// Rank counts the leading values above tolSq of the first, and none when
// the first is not positive.
func TestRank(t *testing.T) {
	for _, c := range []struct {
		sq    []float64
		tolSq float64
		want  int
	}{
		{[]float64{4, 1, 1e-9, 1e-12, 0}, 1e-10, 3},
		{[]float64{4, 1, 4e-10, 1e-12}, 1e-10, 2}, // 4e-10 = 1e-10·4 is not above
		{[]float64{0, 0}, 1e-10, 0},
		{[]float64{-1, 2}, 1e-10, 0},
		{nil, 1e-10, 0},
	} {
		if got := dense.Rank(c.sq, c.tolSq); got != c.want {
			t.Errorf("Rank(%v, %g) = %d, want %d", c.sq, c.tolSq, got, c.want)
		}
	}
}
