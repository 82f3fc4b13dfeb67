package geodesic

// The geodesic table's kernel (Index.tablePaths): on amd64 SSE2 assembly
// (minplus2_amd64.s, two values an instruction), elsewhere or with the
// noasm build tag the Go form below.

// minPlus2Go sets ref[i] = min(ref[i], d0 + r0[i], d1 + r1[i]): two
// neighbours' rows of the geodesic table (Index.tablePaths). Every value
// is ≥ 0 or +Inf, never NaN, so the SSE2 form (MINPD, whose NaN and
// signed-zero rules differ from Go's min) gives the same result bit for
// bit; r0 and r1 hold at least len(ref) values.
func minPlus2Go(ref, r0, r1 []float64, d0, d1 float64) {
	r0, r1 = r0[:len(ref)], r1[:len(ref)]
	for i, v := range ref {
		ref[i] = min(v, d0+r0[i], d1+r1[i])
	}
}
