//go:build !amd64 || noasm

package geodesic

func minPlus2(ref, r0, r1 []float64, d0, d1 float64) { minPlus2Go(ref, r0, r1, d0, d1) }
