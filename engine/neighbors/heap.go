package neighbors

// The binary heaps of (distance, index) pairs that the searches keep — the
// exact searches' k nearest (topK), an approximate query's kept candidates
// and its frontier (searcher) — are two parallel slices, ds and js, ordered
// by distance then index, in max-heaps: the root is the last pair in that
// order (the worst kept). The frontier, which wants the first pair at its
// root, keeps the pairs negated, (−d, −j), whose order is the reverse.

// heapKey and heapIndex are the distances' and indices' types: float64
// and int in the exact searches, float32 and int32 in the approximate ones.
type (
	heapKey   interface{ ~float32 | ~float64 }
	heapIndex interface{ ~int32 | ~int }
)

// pairBefore reports whether (d1, j1) comes before (d2, j2): the smaller
// distance, the smaller index at equal distances.
func pairBefore[D heapKey, J heapIndex](d1 D, j1 J, d2 D, j2 J) bool {
	return d1 < d2 || (d1 == d2 && j1 < j2)
}

// heapUp puts (d, j) at position i of the max-heap ds[:i+1], js[:i+1]
// (its first i entries a heap) and moves it up to its place.
func heapUp[D heapKey, J heapIndex](ds []D, js []J, i int, d D, j J) {
	for i > 0 {
		p := (i - 1) / 2
		if !pairBefore(ds[p], js[p], d, j) {
			break
		}
		ds[i], js[i] = ds[p], js[p]
		i = p
	}
	ds[i], js[i] = d, j
}

// heapDown puts (d, j) in place of the root of the max-heap ds[:n],
// js[:n] and moves it down to its place.
func heapDown[D heapKey, J heapIndex](ds []D, js []J, n int, d D, j J) {
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && pairBefore(ds[c], js[c], ds[c+1], js[c+1]) {
			c++
		}
		if !pairBefore(d, j, ds[c], js[c]) {
			break
		}
		ds[i], js[i] = ds[c], js[c]
		i = c
	}
	ds[i], js[i] = d, j
}
