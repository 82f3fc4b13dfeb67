//go:build amd64 && !noasm

package geodesic

// minPlus2: see minplus2.go.
func minPlus2(ref, r0, r1 []float64, d0, d1 float64) {
	if len(r0) < len(ref) || len(r1) < len(ref) {
		panic("geodesic: minPlus2: short rows")
	}
	minPlus2SSE2(ref, r0, r1, d0, d1)
}

//go:noescape
func minPlus2SSE2(ref, r0, r1 []float64, d0, d1 float64)
