package neighbors

// An approximate query's time goes to the dot products of the query with
// the rows it visits (rows scattered over the index: each one a few cache
// misses). dots4 takes four rows at once, so that their misses overlap and
// the query's values are loaded once for four; on amd64 it is SSE
// assembly (dot4_amd64.s), elsewhere or with the noasm build tag the Go
// below. Both sum each row in four lanes, lane l holding the products of
// the coordinates c ≡ l (mod 4) below len(q) &^ 3, then
// (lane 0 + lane 2) + (lane 1 + lane 3), then the last len(q) mod 4
// products in order: the same float32 result bit for bit, whichever row
// of the four a row is (each product rounded before it is added: the Go
// form converts it, which keeps the compiler from fusing it into an FMA).

// dots4 sets out[r] to the dot product of q with x[off[r] : off[r]+len(q)]
// for the four rows; every such row must lie within x.
func dots4(q, x []float32, off *[4]int, out *[4]float32) {
	for _, o := range off {
		if o < 0 || o+len(q) > len(x) {
			panic("neighbors: dots4: a row outside the rows")
		}
	}
	dots4Body(q, x, off, out)
	dots4Tail(q, x, off, out)
}

// dots4LanesGo is dots4Body in Go: out[r] is the four lanes' sum of the
// products of the first len(q) &^ 3 coordinates.
func dots4LanesGo(q, x []float32, off *[4]int, out *[4]float32) {
	n := len(q) &^ 3
	for r, o := range off {
		row := x[o : o+n]
		var l0, l1, l2, l3 float32
		for c := 0; c < n; c += 4 {
			l0 += float32(q[c] * row[c])
			l1 += float32(q[c+1] * row[c+1])
			l2 += float32(q[c+2] * row[c+2])
			l3 += float32(q[c+3] * row[c+3])
		}
		out[r] = (l0 + l2) + (l1 + l3)
	}
}

// dots4Tail adds the products of the last len(q) mod 4 coordinates to out,
// in order.
func dots4Tail(q, x []float32, off *[4]int, out *[4]float32) {
	for r, o := range off {
		t := out[r]
		for c := len(q) &^ 3; c < len(q); c++ {
			t += float32(q[c] * x[o+c])
		}
		out[r] = t
	}
}
