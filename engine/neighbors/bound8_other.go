//go:build !amd64 || noasm

package neighbors

func sqDist8Rows(lb []float64, q *[8]float64, t []float64) { sqDist8RowsGo(lb, q, t) }

func sqDist8Add(lb []float64, q *[8]float64, t []float64, rows []int) {
	sqDist8AddGo(lb, q, t, rows)
}
