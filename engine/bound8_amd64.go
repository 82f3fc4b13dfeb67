//go:build amd64 && !noasm

package engine

// sqDist8Rows and sqDist8Add: see bound8.go. The assembly reads without
// bounds checks, so these check the lengths it relies on; the rows given
// to sqDist8Add are the search's own offsets within a leaf (below len(lb)
// by construction).
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
