//go:build amd64 && !noasm

package engine

// sqDist8Rows and sqDist8Add: see bound8.go. The assembly reads and
// writes without bounds checks, so these check every length and row it
// relies on (a compare a row, against the twenty instructions of its sum).
func sqDist8Rows(lb []float64, q *[8]float64, t []float64) {
	if len(t) < 8*len(lb) {
		panic("engine: sqDist8Rows: short rows")
	}
	sqDist8RowsSSE2(lb, q, t)
}

func sqDist8Add(lb []float64, q *[8]float64, t []float64, rows []int) {
	if len(t) < 8*len(lb) {
		panic("engine: sqDist8Add: short rows")
	}
	for _, r := range rows {
		if uint(r) >= uint(len(lb)) {
			panic("engine: sqDist8Add: a row outside the leaf")
		}
	}
	sqDist8AddSSE2(lb, q, t, rows)
}

//go:noescape
func sqDist8RowsSSE2(lb []float64, q *[8]float64, t []float64)

//go:noescape
func sqDist8AddSSE2(lb []float64, q *[8]float64, t []float64, rows []int)

func minPlus2(ref, r0, r1 []float64, d0, d1 float64) {
	if len(r0) < len(ref) || len(r1) < len(ref) {
		panic("engine: minPlus2: short rows")
	}
	minPlus2SSE2(ref, r0, r1, d0, d1)
}

//go:noescape
func minPlus2SSE2(ref, r0, r1 []float64, d0, d1 float64)
