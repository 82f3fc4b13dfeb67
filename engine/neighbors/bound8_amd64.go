//go:build amd64 && !noasm

package neighbors

// sqDist8Rows and sqDist8Add: see bound8.go. The assembly reads and
// writes without bounds checks, so these check every length and row it
// relies on (a compare a row, against the twenty instructions of its sum).
func sqDist8Rows(lb []float64, q *[8]float64, t []float64) {
	if len(t) < 8*len(lb) {
		panic("neighbors: sqDist8Rows: short rows")
	}
	sqDist8RowsSSE2(lb, q, t)
}

func sqDist8Add(lb []float64, q *[8]float64, t []float64, rows []int) {
	if len(t) < 8*len(lb) {
		panic("neighbors: sqDist8Add: short rows")
	}
	for _, r := range rows {
		if uint(r) >= uint(len(lb)) {
			panic("neighbors: sqDist8Add: a row outside the leaf")
		}
	}
	sqDist8AddSSE2(lb, q, t, rows)
}

//go:noescape
func sqDist8RowsSSE2(lb []float64, q *[8]float64, t []float64)

//go:noescape
func sqDist8AddSSE2(lb []float64, q *[8]float64, t []float64, rows []int)
