package engine_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/enginetest"
	"github.com/manifoldlab/manifold/internal/testmode"
	"github.com/manifoldlab/manifold/sparse"
)

// TestScaleEquivariance: 300 USPS digits scaled by powers of two across
// the range Fit accepts (2^±200 ≈ 1e±60, 2^±300 ≈ 1e±90, 2^±460 ≈ 1e±138)
// embed as the unscaled digits do, up to the scale: each column compared
// after dividing it by its largest |value|, up to sign; Transform of the
// scaled rows gives the scaled embedding. Where a method refuses a scale
// the error is ErrNotFinite or ErrNumerical, and only OIP and SOIP, whose
// M is of degree 4 in the data, may refuse within 2^±460 — never a wrong
// embedding with a nil error (before: MDS, Isomap, TDPM, OIP and SOIP
// returned garbage at 1e−90 where Lanczos solved τ, Isomap's float32 geodesics failed at 1e20 and
// 1e−30, Landmark Isomap at 1e−30). IsoProjection's ridge α and Low-Rank
// Isomap's LRR λ weigh terms of different degrees in the data, so their
// embeddings depend on its scale by design: they are held to finite output
// or those errors.
func TestScaleEquivariance(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "every method at seven scales (numerics, not concurrency)")
	ctx := context.Background()
	x := engine.DigitRows(t, 300)
	labels := engine.LoadSharedLabels(t, "usps9298")[:300]
	type variant struct {
		name string
		m    enginetest.Method
		tune func(any)
	}
	var variants []variant
	for _, m := range enginetest.Methods {
		variants = append(variants, variant{m.Name, m, nil})
		if m.Name == "isomap" {
			variants = append(variants, variant{"isomap-float32", m, func(p any) { p.(*engine.Isomap).Float32 = true }},
				variant{"isomap-lanczos", m, func(p any) { p.(*engine.Isomap).Eigensolver = engine.EigenLanczos }})
		}
	}
	fit := func(v variant, x mat.Matrix) (engine.Model, error) {
		return relFit(ctx, v.m, x, enginetest.Settings{Tune: v.tune}, labels)
	}
	byDesign := map[string]bool{"isoprojection": true, "lowrank-isomap": true}
	for _, v := range variants {
		base, err := fit(v, x)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		want := maxNormalized(base.Embedding())
		for _, e := range []int{200, -200, 300, -300, 460, -460} {
			var xs mat.Dense
			xs.Scale(math.Ldexp(1, e), x)
			m, err := fit(v, &xs)
			if err != nil {
				quartic := v.name == "oip" || v.name == "soip"
				if !quartic || !(errors.Is(err, engine.ErrNotFinite) || errors.Is(err, engine.ErrNumerical)) || (e == 200 || e == -200) {
					t.Errorf("%s at 2^%d: %v", v.name, e, err)
				}
				continue
			}
			y := m.Embedding()
			if !allFinite(y) {
				t.Errorf("%s at 2^%d: embedding not finite", v.name, e)
				continue
			}
			if !byDesign[v.name] {
				if d := engine.ColsUpToSign(t, want, maxNormalized(y)); !(d <= 1e-6) {
					t.Errorf("%s at 2^%d: embedding differs from the unscaled one by %.3g of each column's largest value", v.name, e, d)
				}
			}
			out, err := m.Transform(ctx, &xs)
			if errors.Is(err, engine.ErrNoTransform) {
				continue
			}
			if err != nil {
				t.Errorf("%s at 2^%d: Transform of the training rows: %v", v.name, e, err)
				continue
			}
			if d := engine.MaxAbsDiff(maxNormalizedBy(out, y), maxNormalized(y)); !(d <= 1e-6) {
				t.Errorf("%s at 2^%d: training rows map %.3g (of the largest value) away from their embedding", v.name, e, d)
			}
		}
	}
}

// maxNormalized is maxNormalizedBy(y, y).
func maxNormalized(y mat.Matrix) *mat.Dense { return maxNormalizedBy(y, y) }

// maxNormalizedBy returns y with each column divided by the largest |value|
// of that column of ref.
func maxNormalizedBy(y, ref mat.Matrix) *mat.Dense {
	r, c := y.Dims()
	out := mat.NewDense(r, c, nil)
	for j := 0; j < c; j++ {
		big := 0.0
		for i := 0; i < r; i++ {
			big = max(big, math.Abs(ref.At(i, j)))
		}
		for i := 0; i < r; i++ {
			out.Set(i, j, y.At(i, j)/big)
		}
	}
	return out
}

// TestSparseOffset: sparse rows with a column of large common offset (1e9
// plus unit noise, a column of timestamps, say) beside 300 USPS digits
// embed as the same rows given dense: the sparse paths compute distances
// and centred products from the rows' norms, which that offset cancels to
// nothing (before: every sparse method's embedding differed entirely —
// Isomap, LPP, IsoProjection, Laplacian eigenmaps, LTSA — and NPE failed),
// so such rows are made dense. The neighbour graph of manifold neighbors
// too. Rows with a small offset (1e3) stay sparse.
func TestSparseOffset(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "every sparse method dense and sparse at two offsets (numerics, not concurrency)")
	ctx := context.Background()
	digits := engine.DigitRows(t, 300)
	n, d := digits.Dims()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, offset := range []float64{1e3, 1e9} {
		x := mat.NewDense(n, d+1, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < d; j++ {
				x.Set(i, j, digits.At(i, j))
			}
			x.Set(i, d, offset+rng.NormFloat64())
		}
		xs := sparse.FromDense(x)
		for _, m := range enginetest.Methods {
			if !m.Sparse || m.Name == "lsi" {
				continue
			}
			want, err := relFit(ctx, m, x, enginetest.Settings{}, nil)
			if err != nil {
				t.Fatalf("%s dense, offset %g: %v", m.Name, offset, err)
			}
			got, err := relFit(ctx, m, xs, enginetest.Settings{}, nil)
			if err != nil {
				t.Errorf("%s sparse, offset %g: %v", m.Name, offset, err)
				continue
			}
			tol := 1e-7 // kept sparse at 1e3: products of norms, 1e4 times the spread
			if l, ok := want.(*engine.LTSAModel); ok {
				// Its alignment matrix's null space holds more than the
				// constant here: any basis of it is as right (see its
				// Nullity); the nullity must agree.
				if g := got.(*engine.LTSAModel); l.Nullity() > 1 || g.Nullity() != l.Nullity() {
					if g.Nullity() != l.Nullity() {
						t.Errorf("ltsa, offset %g: nullity %d sparse, %d dense", offset, g.Nullity(), l.Nullity())
					}
					continue
				}
			}
			if diff := engine.ColsUpToSign(t, maxNormalized(want.Embedding()), maxNormalized(got.Embedding())); !(diff <= tol) {
				t.Errorf("%s, offset %g: sparse rows embed %.3g (of each column's largest value) away from dense rows", m.Name, offset, diff)
			}
			kept := got.Report().Params["sparse"]
			if offset == 1e3 && m.Name == "isoprojection" && kept != true {
				t.Errorf("isoprojection, offset 1e3: the rows were not kept sparse (params %v)", got.Report().Params)
			}
		}
		g := engine.KNNGraph{K: 10}
		want, _, err := g.Search(ctx, x)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := g.Search(ctx, xs)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(want.Ind, got.Ind) {
			t.Errorf("offset %g: the sparse rows' neighbours differ from the dense rows'", offset)
		}
	}
}

// TestOffsetInvariance: the methods whose embedding cannot depend on
// where the data sit embed 300 USPS digits beside a column of 1e9 + noise
// as they embed them beside the same noise alone — LTSA's local Gram
// matrices are formed from differences within a neighbourhood (before,
// from raw inner products of about 1e18, which the centring cancelled:
// another alignment matrix, of nullity 27 instead of 9). OIP, SOIP,
// IsoProjection (no centring beyond τ, as their papers write them) and
// LSI (no centring at all) depend on the offset by design.
func TestOffsetInvariance(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "every method with and without an offset (numerics, not concurrency)")
	ctx := context.Background()
	digits := engine.DigitRows(t, 300)
	labels := engine.LoadSharedLabels(t, "usps9298")[:300]
	n, d := digits.Dims()
	rng := rand.New(rand.NewPCG(7, 8))
	x0, x := mat.NewDense(n, d+1, nil), mat.NewDense(n, d+1, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			x0.Set(i, j, digits.At(i, j))
			x.Set(i, j, digits.At(i, j))
		}
		e := rng.NormFloat64()
		x0.Set(i, d, e)
		x.Set(i, d, 1e9+e)
	}
	byDesign := map[string]bool{"oip": true, "soip": true, "isoprojection": true, "lsi": true}
	for _, m := range enginetest.Methods {
		if byDesign[m.Name] {
			continue
		}
		want, err := relFit(ctx, m, x0, enginetest.Settings{}, labels)
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		got, err := relFit(ctx, m, x, enginetest.Settings{}, labels)
		if err != nil {
			t.Errorf("%s with the offset: %v", m.Name, err)
			continue
		}
		if l, ok := want.(*engine.LTSAModel); ok {
			if g := got.(*engine.LTSAModel); g.Nullity() != l.Nullity() {
				t.Errorf("ltsa: nullity %d with the offset, %d without", g.Nullity(), l.Nullity())
			}
			if l.Nullity() > 1 {
				continue // any basis of the null space is as right (see LTSA's Nullity)
			}
		}
		if diff := engine.ColsUpToSign(t, maxNormalized(engine.CentredCols(mat.DenseCopyOf(want.Embedding()))), maxNormalized(engine.CentredCols(mat.DenseCopyOf(got.Embedding())))); !(diff <= 1e-6) {
			t.Errorf("%s: the offset moves the embedding by %.3g of each column's largest value", m.Name, diff)
		}
	}
}

// TestTransformFarPoints: new points far from 300 USPS digits (the digits
// times 1e200, 1e306 and 1.7e308) map to finite coordinates or to an error
// wrapping ErrNotFinite or ErrNoTransform, through Transform, TransformTo
// and TransformRow, for every method — never to NaN or Inf with a nil error
// (before: PCA, LSI and OIP returned ±Inf at 1.7e308, LTSA NaN at 1e306;
// LLE failed with "the local Gram matrix is not positive definite" and
// Laplacian eigenmaps with "no neighbour of positive weight" where the
// squared distances to the training points had overflowed).
func TestTransformFarPoints(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "every method's Transform of far points (numerics, not concurrency)")
	ctx := context.Background()
	x := engine.DigitRows(t, 300)
	labels := engine.LoadSharedLabels(t, "usps9298")[:300]
	for _, m := range enginetest.Methods {
		fitted, err := relFit(ctx, m, x, enginetest.Settings{}, labels)
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		for _, s := range []float64{1e200, 1e306, 1.7e308} {
			var far mat.Dense
			far.Scale(s, x.Slice(0, 5, 0, x.RawMatrix().Cols))
			check := func(how string, y mat.Matrix, err error) {
				t.Helper()
				switch {
				case err != nil && !errors.Is(err, engine.ErrNotFinite) && !errors.Is(err, engine.ErrNoTransform):
					t.Errorf("%s %s of points at %g: %v", m.Name, how, s, err)
				case err == nil && !allFinite(mat.DenseCopyOf(y)):
					t.Errorf("%s %s of points at %g: coordinates not finite, no error", m.Name, how, s)
				}
			}
			y, err := fitted.Transform(ctx, &far)
			check("Transform", y, err)
			dst := mat.NewDense(5, fitted.Dim(), nil)
			check("TransformTo", dst, engine.TransformTo(ctx, fitted, dst, &far))
			row := make([]float64, fitted.Dim())
			check("TransformRow", mat.NewDense(1, len(row), row), engine.TransformRow(ctx, fitted, row, far.RawRowView(1)))
		}
	}
}
