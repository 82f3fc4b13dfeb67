//go:build !amd64 || noasm

package engine

func sqDist8Rows(lb []float64, q *[8]float64, t []float64) { sqDist8RowsGo(lb, q, t) }

func sqDist8Add(lb []float64, q *[8]float64, t []float64, rows []int) {
	sqDist8AddGo(lb, q, t, rows)
}

func minPlus2(ref, r0, r1 []float64, d0, d1 float64) { minPlus2Go(ref, r0, r1, d0, d1) }
