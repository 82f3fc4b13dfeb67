//go:build amd64 && !noasm

package neighbors

// dots4Body is dots4 on the first len(q) &^ 3 coordinates (dot4_amd64.s).
func dots4Body(q, x []float32, off *[4]int, out *[4]float32) {
	dots4SSE(q, x, off, out)
}

//go:noescape
func dots4SSE(q, x []float32, off *[4]int, out *[4]float32)

// prefetchRows asks the cache for the rows' lines, so that their misses
// overlap before dots4 reads them; rows are below len(x)/dim.
func prefetchRows(x []float32, rows []int32, dim int) {
	if dim > 0 {
		prefetchRowsSSE(x, rows, dim)
	}
}

//go:noescape
func prefetchRowsSSE(x []float32, rows []int32, dim int)
