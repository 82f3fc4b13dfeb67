package neighbors

// The exact search's bounds (exact.go) spend most of their time on
// squared distances of 8 coordinates: the query's chunk against every row
// of a leaf, then against the rows still alive. sqDist8Rows and
// sqDist8Add are those loops; on amd64 they are SSE2 assembly
// (bound8_amd64.s: two coordinates an instruction, where the compiled Go
// below does one), elsewhere or with the noasm build tag this Go. Both
// sum in the order of the SSE2 lanes, ((e0² + e2²) + (e4² + e6²)) +
// ((e1² + e3²) + (e5² + e7²)), so that both give the same sums bit for bit
// (and the search compares them against τ with a relative margin,
// searchShave, far above their rounding in any case).

// sqDist8RowsGo sets lb[r] = ‖q − t[8r : 8r+8]‖² for every r < len(lb);
// t holds at least 8·len(lb) values. The sum is written out here and in
// sqDist8AddGo: a function of it is past the compiler's inlining budget.
func sqDist8RowsGo(lb []float64, q *[8]float64, t []float64) {
	t = t[:8*len(lb)]
	for r := range lb {
		u := (*[8]float64)(t[8*r:])
		e0, e1, e2, e3 := q[0]-u[0], q[1]-u[1], q[2]-u[2], q[3]-u[3]
		e4, e5, e6, e7 := q[4]-u[4], q[5]-u[5], q[6]-u[6], q[7]-u[7]
		lb[r] = ((e0*e0 + e2*e2) + (e4*e4 + e6*e6)) + ((e1*e1 + e3*e3) + (e5*e5 + e7*e7))
	}
}

// sqDist8AddGo adds ‖q − t[8r : 8r+8]‖² to lb[r] for every r in rows;
// every r is below len(lb) and t holds at least 8·len(lb) values.
func sqDist8AddGo(lb []float64, q *[8]float64, t []float64, rows []int) {
	t = t[:8*len(lb)]
	for _, r := range rows {
		u := (*[8]float64)(t[8*r:])
		e0, e1, e2, e3 := q[0]-u[0], q[1]-u[1], q[2]-u[2], q[3]-u[3]
		e4, e5, e6, e7 := q[4]-u[4], q[5]-u[5], q[6]-u[6], q[7]-u[7]
		lb[r] += ((e0*e0 + e2*e2) + (e4*e4 + e6*e6)) + ((e1*e1 + e3*e3) + (e5*e5 + e7*e7))
	}
}
