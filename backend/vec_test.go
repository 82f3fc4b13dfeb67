package backend_test

import (
	"math"
	"testing"

	"github.com/manifoldlab/manifold/backend"
)

func TestVectorKernels(t *testing.T) {
	x := []float64{1, -2, 3, 4, -5, 6, 7}
	y := []float64{2, 1, 0, -1, 3, 2, 1}
	if d := backend.Dot(x, y); d != 2-2+0-4-15+12+7 {
		t.Errorf("Dot = %v", d)
	}
	if n := backend.Nrm2(x); math.Abs(n-math.Sqrt(140)) > 1e-15 {
		t.Errorf("Nrm2 = %v", n)
	}
	// No overflow or underflow at the extremes.
	if n := backend.Nrm2([]float64{3e200, 4e200}); math.Abs(n/5e200-1) > 1e-15 {
		t.Errorf("Nrm2 near overflow = %v", n)
	}
	if n := backend.Nrm2([]float64{3e-200, 4e-200}); math.Abs(n/5e-200-1) > 1e-15 {
		t.Errorf("Nrm2 near underflow = %v", n)
	}
	z := append([]float64(nil), y...)
	backend.Axpy(2, x, z)
	backend.Scal(0.5, z)
	for i := range z {
		if z[i] != (y[i]+2*x[i])/2 {
			t.Fatalf("Axpy/Scal [%d] = %v", i, z[i])
		}
	}
}
