package tangent

import (
	"context"
	"errors"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
)

// SymmetrizeSquared averages TD with its transpose, squares it, zeroes the
// diagonal and returns the largest entry, across several tiles; a
// cancelled context stops it.
func TestSymmetrizeSquared(t *testing.T) {
	const n = 150 // three tile rows
	td := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
	for i := range n {
		for j := range n {
			td.Data[i*n+j] = float64(i + 2*j)
		}
	}
	top, err := SymmetrizeSquared(context.Background(), td)
	if err != nil {
		t.Fatal(err)
	}
	want := 0.0
	for i := range n {
		for j := range n {
			v := 0.0
			if i != j {
				m := 0.5 * float64(3*i+3*j)
				v = m * m
			}
			want = max(want, v)
			if td.Data[i*n+j] != v {
				t.Fatalf("(%d, %d) = %v, want %v", i, j, td.Data[i*n+j], v)
			}
		}
	}
	if top != want {
		t.Errorf("largest %v, want %v", top, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := SymmetrizeSquared(ctx, td); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
