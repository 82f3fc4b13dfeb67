//go:build !amd64 || noasm

package neighbors

// dots4Body is dots4 on the first len(q) &^ 3 coordinates.
func dots4Body(q, x []float32, off *[4]int, out *[4]float32) { dots4LanesGo(q, x, off, out) }

// prefetchRows does nothing without the assembly.
func prefetchRows(x []float32, rows []int32, dim int) {}
