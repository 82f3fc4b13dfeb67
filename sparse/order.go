package sparse

import "slices"

// Ordering names a fill-reducing ordering of a symmetric matrix's graph for
// its LDLᵀ factorization (AnalyzeLDL).
type Ordering int

const (
	// OrderAuto computes the symbolic factorization under AMD and, when
	// AMD's factor is small enough to be factored row by row, under RCM,
	// and keeps the one predicted to factor faster (see AnalyzeLDL; the
	// symbolic analysis costs O(nnz(L)) each).
	OrderAuto Ordering = iota
	// OrderRCM is the reverse Cuthill–McKee ordering (George & Liu 1981,
	// §4.3): narrow bandwidth, good for long thin graphs.
	OrderRCM
	// OrderND is nested dissection by level-structure separators (George,
	// "Nested dissection of a regular finite element mesh", SIAM J. Numer.
	// Anal. 10(2), 1973; the automatic variant of George & Liu 1981, ch. 8):
	// a middle level of a breadth-first level structure rooted at a
	// pseudo-peripheral vertex splits the graph in two, both halves are
	// ordered recursively and the separator is numbered last. On the
	// neighbour graph of a 2-D manifold of N points the factor holds
	// O(N log N) entries and costs O(N^1.5) flam, where an envelope (RCM)
	// holds O(N^1.5) and costs O(N²).
	OrderND
	// OrderNatural keeps the matrix's own order (for tests and
	// already-ordered matrices).
	OrderNatural
	// OrderAMD is the approximate minimum degree ordering (Amestoy, Davis
	// & Duff, SIAM J. Matrix Anal. Appl. 17(4), 1996): greedy elimination
	// of a variable of least approximate degree on the quotient graph. It
	// keeps the factor small where no separator is small, as on the
	// neighbour graphs of high-dimensional data.
	OrderAMD
)

// String returns "auto", "rcm", "nested dissection", "natural" or "amd".
func (o Ordering) String() string {
	switch o {
	case OrderAuto:
		return "auto"
	case OrderRCM:
		return "rcm"
	case OrderND:
		return "nested dissection"
	case OrderNatural:
		return "natural"
	case OrderAMD:
		return "amd"
	}
	return "Ordering(?)"
}

// ndLeaf is the size under which nested dissection stops splitting: the
// dense factor of a leaf costs at most ndLeaf³/6 flam.
const ndLeaf = 48

// nestedDissection returns the nested-dissection order (new → old) of the
// symmetric a's graph and its inverse, or nils once stop says so.
func nestedDissection(stop *stopper, a *CSR) ([]int32, []int32) {
	n := a.r
	lab := make([]int32, n) // subproblem of each vertex; −1 once numbered
	level := make([]int32, n)
	next := int32(1)
	perm := make([]int32, 0, n)
	queue := make([]int32, 0, n)
	// bfs fills queue with the vertices reachable from s within label id,
	// level[v] their distances; it returns the number of levels.
	bfs := func(s, id int32) int32 {
		queue = append(queue[:0], s)
		level[s] = 0
		seen := next + 1 // temporary label for "visited in this sweep"
		lab[s] = -seen
		for h := 0; h < len(queue); h++ {
			u := queue[h]
			stop.tick(a.indptr[u+1] - a.indptr[u] + 1) // checked by order
			for _, w := range a.ind[a.indptr[u]:a.indptr[u+1]] {
				if lab[w] == id {
					lab[w] = -seen
					level[w] = level[u] + 1
					queue = append(queue, int32(w))
				}
			}
		}
		for _, v := range queue {
			lab[v] = id
		}
		return level[queue[len(queue)-1]] + 1
	}
	var order func(vs []int32)
	order = func(vs []int32) {
		for len(vs) > ndLeaf {
			if stop.err != nil {
				return
			}
			id := next
			next += 2
			for _, v := range vs {
				lab[v] = id
			}
			nl := bfs(vs[0], id)
			if len(queue) < len(vs) {
				// Disconnected: the component reached, then the rest.
				comp := slices.Clone(queue)
				inComp := id + 1
				for _, v := range comp {
					lab[v] = inComp
				}
				rest := make([]int32, 0, len(vs)-len(comp))
				for _, v := range vs {
					if lab[v] == id {
						rest = append(rest, v)
					}
				}
				order(comp)
				vs = rest
				continue
			}
			// Pseudo-peripheral root: two sweeps from the farthest vertex.
			for sweep := 0; sweep < 2; sweep++ {
				nl = bfs(queue[len(queue)-1], id)
			}
			if stop.tick(len(vs)) {
				return
			}
			if nl < 3 {
				break // a clique-like piece: no useful separator
			}
			// Separator: the smallest level in the middle third.
			cnt := make([]int, nl)
			for _, v := range queue {
				cnt[level[v]]++
			}
			best := nl / 2
			for l := max(1, nl/3); l <= min(nl-2, 2*nl/3); l++ {
				if cnt[l] < cnt[best] || (cnt[l] == cnt[best] && abs(int(l)-int(nl/2)) < abs(int(best)-int(nl/2))) {
					best = l
				}
			}
			var lo, hi, sep []int32
			for _, v := range queue {
				switch l := level[v]; {
				case l < best:
					lo = append(lo, v)
				case l > best:
					hi = append(hi, v)
				default:
					sep = append(sep, v)
				}
			}
			// Thin the separator: a vertex of the middle level with no
			// neighbour beyond it separates nothing and joins the lower
			// part (or, if that frees more, one with no neighbour below
			// it joins the upper part).
			noHi, noLo := 0, 0
			for _, v := range sep {
				hiNb, loNb := false, false
				for _, w := range a.ind[a.indptr[v]:a.indptr[v+1]] {
					if lab[w] == id {
						hiNb = hiNb || level[w] > best
						loNb = loNb || level[w] < best
					}
				}
				if !hiNb {
					noHi++
				}
				if !loNb {
					noLo++
				}
			}
			if noHi > 0 || noLo > 0 {
				toLo := noHi >= noLo
				kept := sep[:0]
				for _, v := range sep {
					free := true
					for _, w := range a.ind[a.indptr[v]:a.indptr[v+1]] {
						if lab[w] == id && ((toLo && level[w] > best) || (!toLo && level[w] < best)) {
							free = false
							break
						}
					}
					switch {
					case !free:
						kept = append(kept, v)
					case toLo:
						lo = append(lo, v)
					default:
						hi = append(hi, v)
					}
				}
				sep = kept
			}
			for _, v := range sep {
				lab[v] = -1
			}
			order(lo)
			order(hi)
			perm = append(perm, sep...)
			return
		}
		for _, v := range vs {
			lab[v] = -1
		}
		perm = append(perm, vs...)
	}
	all := make([]int32, n)
	for i := range all {
		all[i] = int32(i)
	}
	order(all)
	if stop.err != nil {
		return nil, nil
	}
	inv := make([]int32, n)
	for k, v := range perm {
		inv[v] = int32(k)
	}
	return perm, inv
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
