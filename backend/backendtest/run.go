package backendtest

import (
	"testing"

	"github.com/manifoldlab/manifold/backend"
)

// Run runs every conformance test against impl, each as a subtest.
func Run(t *testing.T, impl backend.Impl) {
	tests := []struct {
		name string
		fn   func(*testing.T, backend.Impl)
	}{
		{"Gemm", TestGemm}, {"Syrk", TestSyrk}, {"Symm", TestSymm}, {"Gemv", TestGemv}, {"Symv", TestSymv},
		{"Syevd", TestSyevd}, {"Syevr", TestSyevr}, {"Sygvd", TestSygvd}, {"Gesdd", TestGesdd},
		{"Cholesky", TestCholesky}, {"QR", TestQR}, {"NotFinite", TestNotFinite},
		{"SqDist", TestSqDist}, {"DoubleCenter", TestDoubleCenter}, {"EigTopBottom", TestEigTopBottom},
		{"SymUpperLower", TestSymUpperLower},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, impl) })
	}
}
