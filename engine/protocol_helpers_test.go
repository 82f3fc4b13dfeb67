package engine

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// randomSplit returns the rows of x and their labels split at random into
// a training part of frac and the rest.
func randomSplit(x *mat.Dense, y []int, frac float64, seed uint64) (xtr, xte *mat.Dense, ytr, yte []int) {
	n, d := x.Dims()
	perm := rand.New(rand.NewPCG(seed, 7)).Perm(n)
	ntr := int(frac * float64(n))
	xtr, xte = mat.NewDense(ntr, d, nil), mat.NewDense(n-ntr, d, nil)
	for i, p := range perm {
		if i < ntr {
			xtr.SetRow(i, x.RawRowView(p))
			ytr = append(ytr, y[p])
		} else {
			xte.SetRow(i-ntr, x.RawRowView(p))
			yte = append(yte, y[p])
		}
	}
	return
}

// classOrder groups the samples by label: the labels in the order they
// first appear, and the samples of each.
func classOrder(y []int) ([]int, map[int][]int) {
	byClass := map[int][]int{}
	var order []int
	for i, l := range y {
		if _, ok := byClass[l]; !ok {
			order = append(order, l)
		}
		byClass[l] = append(byClass[l], i)
	}
	return order, byClass
}

// splitPerClass draws p samples of every class for training (the first p
// of rng.Perm over the class, the classes in order) and leaves the others
// for testing.
func splitPerClass(rng *rand.Rand, order []int, byClass map[int][]int, p int) (tr, te []int) {
	for _, l := range order {
		m := byClass[l]
		for k, pi := range rng.Perm(len(m)) {
			if k < p {
				tr = append(tr, m[pi])
			} else {
				te = append(te, m[pi])
			}
		}
	}
	return tr, te
}

// pickRows returns the rows idx of x.
func pickRows(x *mat.Dense, idx []int) *mat.Dense {
	_, d := x.Dims()
	out := mat.NewDense(len(idx), d, nil)
	for r, i := range idx {
		out.SetRow(r, x.RawRowView(i))
	}
	return out
}

// pickInts returns the entries idx of v.
func pickInts(v []int, idx []int) []int {
	out := make([]int, len(idx))
	for r, i := range idx {
		out[r] = v[i]
	}
	return out
}

// nearestNeighbourAccuracy classifies every row of te by its nearest row
// of tr (Euclidean) and returns the fraction labelled correctly.
func nearestNeighbourAccuracy(tr, te *mat.Dense, ytr, yte []int) float64 {
	ntr, d := tr.Dims()
	nte, _ := te.Dims()
	right := 0
	for i := 0; i < nte; i++ {
		q := te.RawRowView(i)
		best, bj := -1.0, -1
		for j := 0; j < ntr; j++ {
			r := tr.RawRowView(j)
			s := 0.0
			for c := 0; c < d; c++ {
				t := q[c] - r[c]
				s += t * t
			}
			if bj < 0 || s < best {
				best, bj = s, j
			}
		}
		if ytr[bj] == yte[i] {
			right++
		}
	}
	return float64(right) / float64(nte)
}
