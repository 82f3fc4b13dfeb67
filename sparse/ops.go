package sparse

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/manifoldlab/manifold/backend"
)

// Norm selects a vector norm for NormalizeRows.
type Norm int

const (
	// L2 divides every row by its Euclidean norm (the default).
	L2 Norm = iota
	// L1 divides every row by the sum of the absolute values.
	L1
	// Max divides every row by its largest absolute value.
	Max
)

// NormalizeRows returns a copy of A with every row divided by its norm;
// rows whose norm is zero are left as they are (scikit-learn's normalize).
// The pattern is shared with a.
func (a *CSR) NormalizeRows(norm Norm) *CSR {
	b := a.withValues()
	for i := 0; i < b.r; i++ {
		vals := b.data[b.indptr[i]:b.indptr[i+1]]
		s := 0.0
		switch norm {
		case L2:
			for _, v := range vals {
				s += v * v
			}
			s = math.Sqrt(s)
		case L1:
			for _, v := range vals {
				s += math.Abs(v)
			}
		case Max:
			for _, v := range vals {
				s = math.Max(s, math.Abs(v))
			}
		default:
			panic(fmt.Sprintf("sparse: unknown norm %d", norm))
		}
		if s == 0 {
			continue
		}
		for k := range vals {
			vals[k] /= s
		}
	}
	return b
}

// TFIDF returns the TF-IDF weighting of the document-term count matrix A
// (rows are documents, columns terms), as scikit-learn's TfidfTransformer
// with its defaults (norm='l2', use_idf, smooth_idf, no sublinear tf):
// idf_j = ln((1 + n) / (1 + df_j)) + 1, with df_j the number of documents
// whose count of term j is non-zero, then w_ij = a_ij·idf_j, rows scaled
// to unit Euclidean norm. It also returns idf, for transforming new
// documents with the same weights (TFIDFWith).
func (a *CSR) TFIDF() (*CSR, []float64) {
	df := make([]int, a.c)
	for p, j := range a.ind[:a.NNZ()] {
		if a.data[p] != 0 {
			df[j]++
		}
	}
	idf := make([]float64, a.c)
	n := float64(a.r)
	for j, d := range df {
		idf[j] = math.Log((1+n)/(1+float64(d))) + 1
	}
	return a.TFIDFWith(idf), idf
}

// TFIDFWith weights the columns of A by idf and normalises the rows (L2).
func (a *CSR) TFIDFWith(idf []float64) *CSR {
	if len(idf) != a.c {
		panic(fmt.Sprintf("sparse: TFIDFWith: %d weights for %d columns", len(idf), a.c))
	}
	b := a.withValues()
	for p, j := range b.ind {
		b.data[p] *= idf[j]
	}
	return b.NormalizeRows(L2)
}

// withValues returns a matrix sharing a's pattern (a CSR's row pointers
// and column indices are never written once made) with a copy of its
// values, for the operations that change values only.
func (a *CSR) withValues() *CSR {
	return newCSR(a.r, a.c, a.indptr, a.ind, slices.Clone(a.data))
}

// Scale returns s·A (the pattern shared with a).
func (a *CSR) Scale(s float64) *CSR {
	b := a.withValues()
	for k := range b.data {
		b.data[k] *= s
	}
	return b
}

// RowSums returns Σ_j a_ij for every row.
func (a *CSR) RowSums() []float64 {
	s := make([]float64, a.r)
	for i := range s {
		for _, v := range a.data[a.indptr[i]:a.indptr[i+1]] {
			s[i] += v
		}
	}
	return s
}

// Map returns the matrix with the same pattern (shared with a) and values
// f(i, j, a_ij).
func (a *CSR) Map(f func(i, j int, v float64) float64) *CSR {
	b := a.withValues()
	for i := 0; i < b.r; i++ {
		for p := b.indptr[i]; p < b.indptr[i+1]; p++ {
			b.data[p] = f(i, b.ind[p], b.data[p])
		}
	}
	return b
}

// Union returns the matrix whose pattern is the union of the patterns of A
// and B (same shape), with value merge(a_ij, b_ij) where both store (i, j)
// and the stored one otherwise. With B = Aᵀ it symmetrizes a graph by the
// OR rule. Rows are merged on all cores: merge may be called from several
// goroutines at once.
func Union(a, b *CSR, merge func(x, y float64) float64) *CSR {
	c, _ := combine(context.Background(), a, b, merge, true)
	return c
}

// Intersection returns the matrix whose pattern is the intersection of the
// patterns of A and B, with value merge(a_ij, b_ij). With B = Aᵀ it keeps the
// mutual edges of a graph (the AND rule). merge may be called from several
// goroutines at once.
func Intersection(a, b *CSR, merge func(x, y float64) float64) *CSR {
	c, _ := combine(context.Background(), a, b, merge, false)
	return c
}

// Symmetrized returns Union(a, aᵀ, merge) (the OR rule of a graph) or,
// with union false, Intersection(a, aᵀ, merge) (the AND rule), a square.
// It looks at ctx every 10⁵ entries or so and returns ctx's error once ctx
// is done (Union of a 10⁶-point kNN graph with its Transpose heard a
// cancel 0.8 s late).
func Symmetrized(ctx context.Context, a *CSR, union bool, merge func(x, y float64) float64) (*CSR, error) {
	if a.r != a.c {
		return nil, fmt.Errorf("%w: symmetrizing a %d×%d matrix", ErrInvalid, a.r, a.c)
	}
	stop := &stopper{ctx: ctx}
	t := a.transpose(stop)
	if t == nil {
		return nil, stop.err
	}
	return combine(ctx, a, t, merge, union)
}

// combine is Union (union) or Intersection; ctx is looked at between
// chunks of rows (of combineGrain entries), and its error returned once
// ctx is done.
func combine(ctx context.Context, a, b *CSR, merge func(x, y float64) float64, union bool) (*CSR, error) {
	if a.r != b.r || a.c != b.c {
		panic(fmt.Sprintf("sparse: combining %d×%d with %d×%d", a.r, a.c, b.r, b.c))
	}
	indptr := make([]int, a.r+1)
	// Rows in chunks on all cores: each row's entries counted, then
	// written at their place (the same matrix as one pass row by row).
	grain := max(1, combineGrain*a.r/max(1, a.NNZ()+b.NNZ()))
	err := backend.ParallelForCtx(ctx, a.r, grain, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			indptr[i+1] = mergeRow(a, b, i, union, false, nil, nil, nil)
		}
	})
	if err != nil {
		return nil, err
	}
	for i := range a.r {
		indptr[i+1] += indptr[i]
	}
	ind := make([]int, indptr[a.r])
	data := make([]float64, indptr[a.r])
	err = backend.ParallelForCtx(ctx, a.r, grain, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			mergeRow(a, b, i, union, true, merge, ind[indptr[i]:indptr[i+1]], data[indptr[i]:indptr[i+1]])
		}
	})
	if err != nil {
		return nil, err
	}
	return newCSR(a.r, a.c, indptr, ind, data), nil
}

// combineGrain is about the entries of a chunk of rows of combine.
const combineGrain = 1 << 14

// mergeRow merges row i of a and b (the union of their patterns, or the
// intersection) into ind and data when write is set, and returns the
// entries.
func mergeRow(a, b *CSR, i int, union, write bool, merge func(x, y float64) float64, ind []int, data []float64) int {
	p, p1 := a.indptr[i], a.indptr[i+1]
	q, q1 := b.indptr[i], b.indptr[i+1]
	k := 0
	for p < p1 || q < q1 {
		switch {
		case q == q1 || (p < p1 && a.ind[p] < b.ind[q]):
			if union {
				if write {
					ind[k], data[k] = a.ind[p], a.data[p]
				}
				k++
			}
			p++
		case p == p1 || b.ind[q] < a.ind[p]:
			if union {
				if write {
					ind[k], data[k] = b.ind[q], b.data[q]
				}
				k++
			}
			q++
		default:
			if write {
				ind[k], data[k] = a.ind[p], merge(a.data[p], b.data[q])
			}
			k++
			p++
			q++
		}
	}
	return k
}

// Submatrix returns the rows rows and columns cols of A, in the given
// orders (a column listed twice appears twice). With rows = cols it is the
// subgraph induced by a vertex subset, renumbered 0…len(rows)-1.
func (a *CSR) Submatrix(rows, cols []int) *CSR {
	where := make([]int, a.c)
	for j := range where {
		where[j] = -1
	}
	multi := false
	for k, j := range cols {
		if j < 0 || j >= a.c {
			panic(fmt.Sprintf("sparse: Submatrix: column %d out of range [0, %d)", j, a.c))
		}
		if where[j] >= 0 {
			multi = true
		}
		where[j] = k
	}
	if multi {
		// Rare: go through a COO.
		t := NewCOO(len(rows), len(cols), 0)
		for r, i := range rows {
			cs, vs := a.Row(i)
			for k, j := range cols {
				for p, c := range cs {
					if c == j {
						t.Add(r, k, vs[p])
					}
				}
			}
		}
		return t.ToCSR()
	}
	t := NewCOO(len(rows), len(cols), 0)
	for r, i := range rows {
		cs, vs := a.Row(i)
		for p, j := range cs {
			if k := where[j]; k >= 0 {
				t.Add(r, k, vs[p])
			}
		}
	}
	return t.ToCSR()
}

// Dot returns the inner product of two sparse vectors, each given by its
// ascending indices and their values (a CSR row, CSR.Row): the products of
// the indices both hold, summed in ascending index order.
func Dot(ai []int, av []float64, bi []int, bv []float64) float64 {
	s := 0.0
	for a, b := 0, 0; a < len(ai) && b < len(bi); {
		switch {
		case ai[a] < bi[b]:
			a++
		case ai[a] > bi[b]:
			b++
		default:
			s += av[a] * bv[b]
			a++
			b++
		}
	}
	return s
}

// SqDist returns the squared Euclidean distance of two sparse vectors, each
// given by its ascending indices and their values (a CSR row, CSR.Row):
// Σ (a_k − b_k)² over the indices either holds, summed in ascending index
// order — bit for bit the sum over every index of the dense vectors (a
// zero term leaves a float sum as it is), which a dense caller's choices
// can then be repeated from.
func SqDist(ai []int, av []float64, bi []int, bv []float64) float64 {
	s := 0.0
	a, b := 0, 0
	for a < len(ai) && b < len(bi) {
		switch {
		case ai[a] < bi[b]:
			s += av[a] * av[a]
			a++
		case ai[a] > bi[b]:
			s += bv[b] * bv[b]
			b++
		default:
			t := av[a] - bv[b]
			s += t * t
			a++
			b++
		}
	}
	for ; a < len(ai); a++ {
		s += av[a] * av[a]
	}
	for ; b < len(bi); b++ {
		s += bv[b] * bv[b]
	}
	return s
}

// LocalOrder returns P·A·Pᵀ for a square a whose pattern is symmetric,
// with P the reverse Cuthill–McKee order of its graph (new → old, also
// returned): every vertex's neighbours then lie near it, so a product with
// the permuted matrix reads its vector almost in order. On the
// 10-nearest-neighbour graph of 10⁶ deformed digits (rows in data order,
// every neighbour a cache miss) a product with two vectors took 240 ms
// in data order and 64 ms in this one; the order cost 2.1 s. It returns
// ctx's error if ctx is done first.
func LocalOrder(ctx context.Context, a *CSR) (*CSR, []int, error) {
	perm, err := LocalOrderOf(ctx, a)
	if err != nil {
		return nil, nil, err
	}
	b, err := a.Permuted(ctx, perm)
	if err != nil {
		return nil, nil, err
	}
	return b, perm, nil
}

// LocalOrderOf returns LocalOrder's permutation (new → old) alone: the
// reverse Cuthill–McKee order of the graph of a square a whose pattern is
// symmetric (repeated entries in a row are allowed; values are not read).
func LocalOrderOf(ctx context.Context, a *CSR) ([]int, error) {
	if a.r != a.c {
		return nil, fmt.Errorf("%w: LocalOrder of a %d×%d matrix", ErrInvalid, a.r, a.c)
	}
	stop := &stopper{ctx: ctx}
	perm, _ := rcm(stop, a)
	if stop.err != nil {
		return nil, stop.err
	}
	out := make([]int, len(perm))
	for k, v := range perm {
		out[k] = int(v)
	}
	return out, nil
}

// Permuted returns P·A·Pᵀ for a square a of any pattern and a permutation
// perm (new → old: row k of the result is row perm[k] of a), each row's
// columns sorted. It returns ctx's error if ctx is done first.
func (a *CSR) Permuted(ctx context.Context, perm []int) (*CSR, error) {
	n := a.r
	if a.c != n || len(perm) != n {
		return nil, fmt.Errorf("%w: Permuted of a %d×%d matrix by %d indices", ErrInvalid, a.r, a.c, len(perm))
	}
	inv := make([]int, n)
	for k, v := range perm {
		inv[v] = k
	}
	b := &CSR{r: n, c: n, indptr: make([]int, n+1), ind: make([]int, len(a.ind)), data: make([]float64, len(a.data))}
	for k, v := range perm {
		b.indptr[k+1] = b.indptr[k] + a.indptr[v+1] - a.indptr[v]
	}
	err := backend.ParallelForCtx(ctx, n, 4096, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			v := perm[k]
			ind, data := b.ind[b.indptr[k]:b.indptr[k+1]], b.data[b.indptr[k]:b.indptr[k+1]]
			for q, p := 0, a.indptr[v]; p < a.indptr[v+1]; q, p = q+1, p+1 {
				// Insertion into the sorted prefix (rows are short).
				j, x := inv[a.ind[p]], a.data[p]
				i := q
				for i > 0 && ind[i-1] > j {
					ind[i], data[i] = ind[i-1], data[i-1]
					i--
				}
				ind[i], data[i] = j, x
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// RowsPermuted returns P·A: row k of the result is row perm[k] of a.
func (a *CSR) RowsPermuted(perm []int) (*CSR, error) {
	if len(perm) != a.r {
		return nil, fmt.Errorf("%w: RowsPermuted of %d rows by %d indices", ErrInvalid, a.r, len(perm))
	}
	b := &CSR{r: a.r, c: a.c, indptr: make([]int, a.r+1), ind: make([]int, 0, len(a.ind)), data: make([]float64, 0, len(a.data))}
	for k, v := range perm {
		b.ind = append(b.ind, a.ind[a.indptr[v]:a.indptr[v+1]]...)
		b.data = append(b.data, a.data[a.indptr[v]:a.indptr[v+1]]...)
		b.indptr[k+1] = len(b.ind)
	}
	return b, nil
}
