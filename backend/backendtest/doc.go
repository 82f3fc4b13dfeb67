// Package backendtest is the conformance suite every backend passes, in the
// pattern of gonum's testlapack: one exported function per kernel taking the
// implementation under test. Kernels are checked against naïve loops (BLAS),
// residuals ‖AV − VΛ‖ ≤ c·n·ε·‖A‖ and orthogonality (eigen, SVD, QR),
// solution residuals (Cholesky), an independent Jacobi eigenvalue reference,
// edge sizes (0, 1, non-square), row strides larger than the column count
// (padding filled with NaN, so reading or writing it is caught), and the
// documented NaN behaviour: BLAS methods propagate NaN, LAPACK methods return
// an error wrapping backend.ErrNotFinite. Nothing is compared bit for bit.
//
// A backend's test calls Run:
//
//	func TestConformance(t *testing.T) {
//		for _, impl := range backend.Impls() {
//			t.Run(impl.Name(), func(t *testing.T) { backendtest.Run(t, impl) })
//		}
//	}
//
// The suite has two sizes, as the module's tests do (internal/testmode): `go
// test` runs the quick one; MANIFOLD_TEST=full adds 30 structured QR and SVD
// matrices of 400×200 to it.
package backendtest
