package lobpcg

import (
	"context"
	"errors"
	"testing"

	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/internal/tall"
)

// LOBPCG's row loops — the Gram matrices, the residuals, the update of X
// and P — each take a few tenths of a second at 10⁶ rows, so each checks
// the context between its blocks of rows: cancelled, they return an error
// wrapping context.Canceled instead of running to the end.
func TestLOBPCGRowLoopsCancel(t *testing.T) {
	n, b := 3*tall.Chunk+5, 2
	buf := dense.New(n, 6*b)
	for i := range buf.Data {
		buf.Data[i] = float64(i%7) - 3
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s, bs := cols(buf, 0, 3*b), cols(buf, 3*b, 6*b)
	if _, _, err := gramPair(ctx, s, bs); !errors.Is(err, context.Canceled) {
		t.Errorf("gramPair: %v, want context.Canceled", err)
	}
	theta := make([]float64, b)
	if _, _, err := residuals(ctx, cols(buf, 0, b), cols(buf, 3*b, 4*b), theta, cols(buf, b, 2*b)); !errors.Is(err, context.Canceled) {
		t.Errorf("residuals: %v, want context.Canceled", err)
	}
	if err := updateBasis(ctx, buf, make([]float64, 3*b*b), 3*b, b); !errors.Is(err, context.Canceled) {
		t.Errorf("updateBasis: %v, want context.Canceled", err)
	}
	// Not cancelled, they run: SᵀS of the same rows is symmetric positive.
	g, _, err := gramPair(context.Background(), s, bs)
	if err != nil {
		t.Fatal(err)
	}
	for a := range 3 * b {
		if !(g.Data[a*g.Stride+a] > 0) {
			t.Fatalf("Gram diagonal %d: %v", a, g.Data[a*g.Stride+a])
		}
	}
}
