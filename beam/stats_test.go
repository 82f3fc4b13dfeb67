package manifoldbeam

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/engine"
)

// TestPCAStatsMerge checks the pairwise merge against a direct two-pass
// computation, for every split of a small set into two accumulators.
func TestPCAStatsMerge(t *testing.T) {
	x, _ := rollData(40, 4, 9)
	var fn pcaCombineFn
	var ref mat.SymDense
	refMean := make([]float64, 4)
	for i := range 40 {
		for j := range 4 {
			refMean[j] += x.At(i, j) / 40
		}
	}
	var c mat.Dense
	c.Apply(func(i, j int, v float64) float64 { return v - refMean[j] }, x)
	ref.SymOuterK(1/39.0, c.T())
	for split := 0; split <= 40; split += 7 {
		a, b := fn.CreateAccumulator(), fn.CreateAccumulator()
		for i := range 40 {
			if i < split {
				a = fn.AddInput(a, append([]float64(nil), x.RawRowView(i)...))
			} else {
				b = fn.AddInput(b, append([]float64(nil), x.RawRowView(i)...))
			}
		}
		mean, cov, err := fn.ExtractOutput(fn.MergeAccumulators(a, b)).Covariance()
		if err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(cov, &ref, 1e-12) || !floatsClose(mean, refMean, 1e-12) {
			t.Errorf("split %d: merged statistics differ from the two-pass ones", split)
		}
	}
	a := fn.AddInput(fn.AddInput(fn.CreateAccumulator(), []float64{1, 2}), []float64{1, 2, 3})
	if _, _, err := a.Covariance(); err == nil {
		t.Error("rows of widths 2 and 3 combined without error")
	}
}

// TestLDAStatsMerge: the class statistics do not depend on how the rows
// are split between accumulators.
func TestLDAStatsMerge(t *testing.T) {
	x, _ := rollData(60, 3, 2)
	var fn ldaCombineFn
	whole := fn.CreateAccumulator()
	for i := range 60 {
		whole = fn.AddInput(whole, Labeled{Label: i % 3, X: append([]float64(nil), x.RawRowView(i)...)})
	}
	ref, err := fn.ExtractOutput(whole).Engine()
	if err != nil {
		t.Fatal(err)
	}
	for split := 1; split < 60; split += 11 {
		a, b := fn.CreateAccumulator(), fn.CreateAccumulator()
		for i := range 60 {
			l := Labeled{Label: i % 3, X: append([]float64(nil), x.RawRowView(i)...)}
			if i < split {
				a = fn.AddInput(a, l)
			} else {
				b = fn.AddInput(b, l)
			}
		}
		st, err := fn.ExtractOutput(fn.MergeAccumulators(b, a)).Engine()
		if err != nil {
			t.Fatal(err)
		}
		for k := range ref.Classes {
			if st.Classes[k] != ref.Classes[k] || st.Counts[k] != ref.Counts[k] || !floatsClose(st.ClassMeans[k], ref.ClassMeans[k], 1e-13) {
				t.Errorf("split %d: class %d differs", split, k)
			}
		}
		if !mat.EqualApprox(st.Scatter, ref.Scatter, 1e-10) {
			t.Errorf("split %d: total scatter differs", split)
		}
	}
}

// TestLSIStatsMerge: the merged Gram matrix equals XᵀX computed directly
// (gonum) for every split of rows, sparse and dense mixed, between two
// accumulators merged either way round, with blocks folded mid-way (600
// rows, blocks of statsBlock); rows of differing widths are an error.
func TestLSIStatsMerge(t *testing.T) {
	const n, d = 600, 12
	x := mixedDocs(n, d, 5, 3)
	var ref mat.SymDense
	ref.SymOuterK(1, x.T())
	var fn lsiCombineFn
	for split := 0; split <= n; split += 130 {
		for _, swap := range []bool{false, true} {
			// Accumulators are consumed by a merge (as in Beam): fresh ones
			// for each order.
			a, b := fn.CreateAccumulator(), fn.CreateAccumulator()
			for i := range n {
				r := append([]float64(nil), x.RawRowView(i)...)
				if i < split {
					a = fn.AddInput(a, r)
				} else {
					b = fn.AddInput(b, r)
				}
			}
			if swap {
				a, b = b, a
			}
			rows, g, err := fn.ExtractOutput(fn.MergeAccumulators(a, b)).GramMatrix()
			if err != nil {
				t.Fatal(err)
			}
			if rows != n || !mat.EqualApprox(g, &ref, 1e-12*mat.Norm(&ref, math.Inf(1))) {
				var diff mat.Dense
				diff.Sub(g, &ref)
				t.Errorf("split %d (swapped %v): %d rows, Gram matrix differs from XᵀX by %g", split, swap, rows, mat.Norm(&diff, math.Inf(1)))
			}
		}
	}
	a := fn.AddInput(fn.AddInput(fn.CreateAccumulator(), []float64{1, 2}), []float64{1, 2, 3})
	if _, _, err := a.GramMatrix(); !errors.Is(err, ErrFit) {
		t.Errorf("rows of widths 2 and 3: %v", err)
	}
	if _, _, err := fn.CreateAccumulator().GramMatrix(); !errors.Is(err, engine.ErrTooFewSamples) {
		t.Errorf("no rows: %v", err)
	}
}

// TestLSIRangeMerge: the merged range sum Y = XᵀX·Q of a pass equals the
// product formed directly (gonum) whatever the split of the rows into
// bundles (sparse and dense rows mixed, blocks folded mid-way), and its
// basis is orthonormal and spans Y.
func TestLSIRangeMerge(t *testing.T) {
	const n, d, l = 700, 30, 6
	x := mixedDocs(n, d, 9, 4)
	omega := mat.NewDense(d, l, gaussianTestMatrix(5, d, l))
	var xo, ref mat.Dense
	xo.Mul(x, omega)
	ref.Mul(x.T(), &xo)
	one := func(b LSIBasis) func(*LSIBasis) bool {
		return func(p *LSIBasis) bool { *p = b; return true }
	}
	var fn lsiRangeCombineFn
	for _, bundles := range []int{1, 2, 5} {
		var merged LSIRange
		for k := range bundles {
			pf := &rangePassFn{Dim: l - 2, Oversample: 2, Seed: 5}
			var part LSIRange
			for i := k; i < n; i += bundles {
				if err := pf.ProcessElement(context.Background(), append([]float64(nil), x.RawRowView(i)...), one(LSIBasis{}), nil); err != nil {
					t.Fatal(err)
				}
			}
			pf.FinishBundle(nil, func(r LSIRange) { part = r })
			merged = fn.MergeAccumulators(merged, part)
		}
		if merged.N != n || merged.D != d || merged.L != l {
			t.Fatalf("%d bundles: %d rows, %d×%d", bundles, merged.N, merged.D, merged.L)
		}
		y := mat.NewDense(d, l, nil)
		for i := range d * l {
			y.RawMatrix().Data[i] = merged.Sum[i] + merged.Comp[i]
		}
		if !mat.EqualApprox(y, &ref, 1e-12*mat.Norm(&ref, math.Inf(1))) {
			var diff mat.Dense
			diff.Sub(y, &ref)
			t.Errorf("%d bundles: Y differs from XᵀXΩ by %g", bundles, mat.Norm(&diff, math.Inf(1)))
		}
		b, err := merged.Basis()
		if err != nil {
			t.Fatal(err)
		}
		q := mat.NewDense(d, l, b.Q)
		var qtq mat.Dense
		qtq.Mul(q.T(), q)
		for i := range l {
			qtq.Set(i, i, qtq.At(i, i)-1)
		}
		if e := mat.Norm(&qtq, math.Inf(1)); e > 1e-13 {
			t.Errorf("%d bundles: |QᵀQ − I| = %g", bundles, e)
		}
		var proj, res mat.Dense
		proj.Mul(q.T(), y)
		res.Mul(q, &proj)
		res.Sub(y, &res)
		if e := mat.Norm(&res, math.Inf(1)); e > 1e-12*mat.Norm(y, math.Inf(1)) {
			t.Errorf("%d bundles: Y − QQᵀY = %g", bundles, e)
		}
	}
	if _, err := (LSIRange{}).Basis(); err == nil {
		t.Error("no rows: no error")
	}
	bad := fn.MergeAccumulators(LSIRange{N: 1, D: 3, L: 2, Sum: make([]float64, 6), Comp: make([]float64, 6)},
		LSIRange{N: 1, D: 4, L: 2, Sum: make([]float64, 8), Comp: make([]float64, 8)})
	if _, err := bad.Basis(); err == nil {
		t.Error("widths 3 and 4: no error")
	}
}

// TestInputWidth: the width of the first row of the first shard in name
// order, for CSV (plain, with an ID and a label column, gzip), .npy and
// Parquet; a glob matching nothing and a header without the ID column are
// errors.
func TestInputWidth(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.csv", []byte("# comment\n\n1,2,3,4\n5,6\n"))
	write("b.csv", []byte("1,2\n"))
	write("h.tsv", []byte("key,x,y,cls,z\nk,1,2,3,4\n"))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("1,2,3,4,5,6,7\n"))
	zw.Close()
	write("c.csv.gz", gz.Bytes())
	var npy bytes.Buffer
	if err := dataio.WriteNPY(&npy, mat.NewDense(3, 9, nil)); err != nil {
		t.Fatal(err)
	}
	write("m.npy", npy.Bytes())
	writeParquetAny(t, filepath.Join(dir, "p.parquet"), new(ParquetRow), []ParquetRow{{ID: "a", X: []float64{1, 2, 3, 4, 5}}, {ID: "b", X: []float64{1}}})
	for _, tc := range []struct {
		glob, id, label string
		want            int
	}{
		{"*.csv", "", "", 4},
		{"h.tsv", "key", "", 4},
		{"h.tsv", "key", "cls", 3},
		{"*.csv.gz", "", "", 7},
		{"*.npy", "", "", 9},
		{"*.parquet", "", "", 5},
	} {
		got, err := InputWidth(ctx, filepath.Join(dir, tc.glob), tc.id, tc.label)
		if err != nil || got != tc.want {
			t.Errorf("%s (id %q, label %q): %d, %v; want %d", tc.glob, tc.id, tc.label, got, err, tc.want)
		}
	}
	if _, err := InputWidth(ctx, filepath.Join(dir, "*.none"), "", ""); !errors.Is(err, ErrInput) {
		t.Errorf("no match: %v", err)
	}
	if _, err := InputWidth(ctx, filepath.Join(dir, "h.tsv"), "id", ""); !errors.Is(err, ErrInput) {
		t.Errorf("no ID column: %v", err)
	}
}

// TestLSIStatsTooWide: the Gram accumulator refuses a row wider than
// MaxLSITerms before it allocates any D×D matrix, naming the limit.
func TestLSIStatsTooWide(t *testing.T) {
	wide := make([]float64, MaxLSITerms+1)
	wide[0] = 1
	var fn lsiCombineFn
	a := fn.AddInput(fn.CreateAccumulator(), wide)
	if a.Gram != nil || a.Block != nil || !strings.Contains(a.Err, "MaxLSITerms = 4096") {
		t.Fatalf("accumulator of a %d-wide row: err %q", len(wide), a.Err)
	}
}
