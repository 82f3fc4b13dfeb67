package neighbors

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestIndexTreeRoundTrip: an index rebuilt from its lists and its Tree
// (as a model file keeps them) answers every query as the index it came
// from (not one grown again from another seed), on rows with duplicates (whose splits are degenerate); a tree that
// does not fit the rows is refused.
func TestIndexTreeRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	n, d := 3000, 16
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		src := i
		if i >= 2000 {
			src = i % 50 // a block of duplicates of the first 50 rows
		}
		for c := 0; c < d; c++ {
			if src == i {
				x.Set(i, c, rng.NormFloat64())
			} else {
				x.Set(i, c, x.At(src, c))
			}
		}
	}
	for _, metric := range []Metric{Euclidean, Cosine} {
		opt := ApproxOptions{Metric: metric, Seed: 7}
		ix, lists, err := NewIndex(ctx, x, 10, opt)
		if err != nil {
			t.Fatal(err)
		}
		tree := ix.Tree()
		// Another seed: the tree must come from the file, not grow again.
		back, err := IndexWithTree(ctx, x, lists, tree, ApproxOptions{Metric: metric, Seed: 99})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back.Tree(), tree) {
			t.Fatalf("%v: the rebuilt index's tree differs", metric)
		}
		q := mat.NewDense(200, d, nil)
		for i := range q.RawMatrix().Data {
			q.RawMatrix().Data[i] = rng.NormFloat64()
		}
		q.Slice(0, 20, 0, d).(*mat.Dense).Copy(x.Slice(1990, 2010, 0, d))
		a, err := ix.Query(ctx, q, 5, 0)
		if err != nil {
			t.Fatal(err)
		}
		b, err := back.Query(ctx, q, 5, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%v: queries differ after the round trip", metric)
		}
	}
	ix, lists, err := NewIndex(ctx, x, 10, ApproxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, spoil := range map[string]func(*Tree){
		"short permutation": func(t *Tree) { t.Perm = t.Perm[1:] },
		"repeated row":      func(t *Tree) { t.Perm[0] = t.Perm[1] },
		"child before":      func(t *Tree) { t.Child[0] = 0 },
		"one child":         func(t *Tree) { t.Child[1] = -1 },
		"leaf past the end": func(t *Tree) {
			last := len(t.Span) - 1
			t.Child[last-1], t.Child[last] = -1, -1
			t.Span[last] = int32(n + 1)
		},
		"missing normal": func(t *Tree) { t.Normals = t.Normals[1:] },
		"NaN offset":     func(t *Tree) { t.Offsets[0] = float32(math.NaN()) },
	} {
		tree := ix.Tree()
		spoil(tree)
		if _, err := IndexWithTree(ctx, x, lists, tree, ApproxOptions{}); !errors.Is(err, ErrInput) {
			t.Errorf("%s: %v, want ErrInput", name, err)
		}
	}
}
