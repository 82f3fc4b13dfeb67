package lars

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
)

// After entries and removals in any position, the Givens-downdated factor
// still satisfies LLᵀ = X_AᵀX_A for the active set, with and without the
// precomputed Gram matrix (independent reference: the products of the
// active columns).
func TestRemoveDowndatesFactor(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, p = 25, 12
	x := blas64.General{Rows: n, Cols: p, Stride: p, Data: make([]float64, n*p)}
	for i := range x.Data {
		x.Data[i] = rng.NormFloat64()
	}
	for _, mode := range []GramMode{GramAlways, GramNever} {
		d, err := NewDesign(x, mode)
		if err != nil {
			t.Fatal(err)
		}
		r := newRun(d, Settings{})
		for _, op := range []int{0, 3, 5, 7, 9, 11, 2, -5, -0, 4, -11, -7, 8, 1, -2} {
			switch {
			case op > 0 || (op == 0 && len(r.active) == 0):
				if !r.add(op, 1) {
					t.Fatalf("add %d refused", op)
				}
			default:
				r.remove(-op)
			}
			k, kc := len(r.active), r.kc
			for a := 0; a < k; a++ {
				for b := 0; b <= a; b++ {
					want := 0.0
					for i := 0; i < n; i++ {
						want += x.Data[i*p+r.active[a]] * x.Data[i*p+r.active[b]]
					}
					got := 0.0
					for q := 0; q <= b; q++ {
						got += r.l[a*kc+q] * r.l[b*kc+q]
					}
					if math.Abs(got-want) > 1e-10*float64(n) {
						t.Fatalf("mode %v after op %d: (LLᵀ)[%d,%d] = %v, X_AᵀX_A = %v", mode, op, a, b, got, want)
					}
				}
				if r.l[a*kc+a] <= 0 {
					t.Fatalf("mode %v after op %d: L[%d,%d] = %v, want > 0", mode, op, a, a, r.l[a*kc+a])
				}
			}
			if d.gram == nil {
				for a, j := range r.active {
					for i := 0; i < n; i++ {
						if r.xa[i*kc+a] != x.Data[i*p+j] {
							t.Fatalf("mode %v after op %d: active column %d not variable %d's", mode, op, a, j)
						}
					}
				}
			}
		}
	}
}

// On a wide design (n < p) of nearly duplicated columns (upsampled
// pixels) the lasso path ends at the interpolating fit
// (λ = 0, residual 0) without refusing the columns that cannot enter once
// n are active: before the saturation check every one of the p − n others
// was tried and refused as collinear, one step each.
func TestWidePathSaturates(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	const n, p = 40, 400
	// Upsampled-image columns: groups of 4 nearly equal features.
	x := blas64.General{Rows: n, Cols: p, Stride: p, Data: make([]float64, n*p)}
	for i := 0; i < n; i++ {
		for j := 0; j < p; j += 4 {
			v := rng.NormFloat64()
			for q := j; q < j+4; q++ {
				x.Data[i*p+q] = v + 1e-3*rng.NormFloat64()
			}
		}
	}
	y := make([]float64, n)
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	for _, mode := range []GramMode{GramAlways, GramNever} {
		d, err := NewDesign(x, mode)
		if err != nil {
			t.Fatal(err)
		}
		path, err := d.Fit(context.Background(), y, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		last := path.Steps[len(path.Steps)-1]
		if last.Lambda > 1e-9*path.Steps[0].Lambda || len(last.Active) != n {
			t.Errorf("mode %v: path ended at λ = %g with %d active, want 0 and %d", mode, last.Lambda, len(last.Active), n)
		}
		if path.Stats.Degenerate != 0 {
			t.Errorf("mode %v: %d columns refused as collinear (%d steps), want none", mode, path.Stats.Degenerate, path.Stats.Steps)
		}
		b := path.Final()
		res := 0.0
		for i := 0; i < n; i++ {
			s := y[i]
			for j := 0; j < p; j++ {
				s -= x.Data[i*p+j] * b[j]
			}
			res += s * s
		}
		if res > 1e-18*float64(n) {
			t.Errorf("mode %v: residual ‖y − Xβ‖² = %g, want 0 (interpolating fit)", mode, res)
		}
	}
}
