//go:build !beam_unit

package manifoldbeam

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/sparse"
)

// topicDocs returns n sparse "documents" of 2000 tokens over d terms
// drawn from 12 topics whose weights decay geometrically (0.75^k), each
// topic a random distribution over 150 terms: text-like counts (about 630
// distinct terms a document at d = 6000) whose spectrum decays over the
// leading singular values down to the flat floor of the sampling noise.
func topicDocs(n, d int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 17))
	const topics, width, tokens = 12, 150, 2000
	terms := make([][]int, topics)
	cum := make([][]float64, topics)
	for k := range topics {
		terms[k] = rng.Perm(d)[:width]
		c := 0.0
		for range width {
			c += rng.ExpFloat64()
			cum[k] = append(cum[k], c)
		}
	}
	docs := mat.NewDense(n, d, nil)
	theta := make([]float64, topics)
	for i := range n {
		tot := 0.0
		for k := range topics {
			theta[k] = math.Pow(0.75, float64(k)) * rng.ExpFloat64()
			tot += theta[k]
		}
		for range tokens {
			u := rng.Float64() * tot
			k := 0
			for ; k < topics-1 && u > theta[k]; k++ {
				u -= theta[k]
			}
			v := rng.Float64() * cum[k][width-1]
			w := 0
			for w < width-1 && cum[k][w] < v {
				w++
			}
			j := terms[k][w]
			docs.Set(i, j, docs.At(i, j)+1)
		}
	}
	return docs
}

// TestFitLSIRandomized fits LSI (dim 5) of 600 topic documents over 6000
// terms (past MaxLSITerms: LSIAuto with Terms = 6000 picks the randomized
// solver; ℓ = 5 + 10 = 15 basis columns) from three CSV shards with a NaN
// row and an unparsable row mixed in (the two dead letters, counted once
// however many passes read the rows), with q = 0, 1 and 2 power
// iterations, and compares each model file with engine.LSI's in-process
// fit of the good rows (sparse.CSR). The leading singular values stand
// 5.6× (σ₅/σ₁₆) and more above the noise floor of the counts; with q = 2
// the five singular values agree to 1e-8 relative (measured 8e-16 for σ₁
// to 4.1e-9 for σ₅), the largest principal angle between the
// 5-dimensional subspaces is ≤ 0.01° (measured 0.0053°) and the Transform
// of every document is within 2e-5 of its largest entry up to the
// columns' signs (measured 6.6e-6). Every run's figures are logged; the
// singular values' errors fall as (σ₁₆/σ_j)^(4q+4) (q = 0: up to 5.6e-3,
// angle 6.4°; q = 1: up to 4e-6, 0.17°; not run under -short).
func TestFitLSIRandomized(t *testing.T) {
	ctx := context.Background()
	const n, d, dim = 600, 6000, 5
	docs := topicDocs(n, d, 3)
	dir := t.TempDir()
	var sb [3]strings.Builder
	for i := range n {
		w := &sb[i%3]
		for j := range d {
			if j > 0 {
				w.WriteByte(',')
			}
			w.WriteString(strconv.FormatFloat(docs.At(i, j), 'g', -1, 64))
		}
		w.WriteByte('\n')
	}
	sb[1].WriteString("NaN" + strings.Repeat(",0", d-1) + "\n")
	sb[2].WriteString("x" + strings.Repeat(",0", d-1) + "\n")
	for k := range sb {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%d.csv", k)), []byte(sb[k].String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := sparse.FromDense(docs)
	want, err := engine.LSI{Dim: dim, Seed: 1}.Fit(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	floor, err := engine.LSI{Dim: dim + DefaultLSIOversample + 1, Seed: 1}.Fit(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	sv := floor.SingularValues()
	t.Logf("engine.LSI: σ₁…σ₁₆ = %.4g (σ₅/σ₁₆ = %.3g)", sv, sv[dim-1]/sv[dim+DefaultLSIOversample])
	yw, _ := want.Transform(ctx, in)
	powers := []int{-1, 1, 2}
	if testing.Short() {
		powers = []int{2} // q = 0 and 1 only for the logged figures
	}
	for _, power := range powers {
		q := max(power, 0)
		opts := LSIOptions{Dim: dim, Terms: d, Power: power, Seed: 4}
		if s, _ := opts.solver(); s != LSIRandomized {
			t.Fatalf("auto with %d terms: %s", d, s)
		}
		path := filepath.Join(dir, fmt.Sprintf("lsi-q%d.bin", q))
		p, s := beam.NewPipelineWithRoot()
		dead := FitLSIWith(s, ReadCSV(s, filepath.Join(dir, "*.csv"), ""), opts, path)
		key := t.Name() + path
		beam.ParDo0(s, &collectDeadFn{Key: key}, dead)
		res, err := ptest.RunWithMetrics(p)
		if err != nil {
			t.Fatal(err)
		}
		if c := counters(t, res); c[MetricRowsIn] != n+2 || c[MetricRowsOut] != n || c[MetricDeadLetter] != 2 {
			t.Errorf("q = %d: counters %v, want %d in, %d out, 2 dead", q, c, n+2, n)
		}
		if _, dl := takeCollected(key); len(dl) != 2 {
			t.Errorf("q = %d: dead letters %v", q, dl)
		}
		m := loadModelFile(t, path)
		got := m.(*engine.LSIModel)
		if r := got.Report(); r.N != n || r.Features != d {
			t.Errorf("q = %d: report: %d rows of %d features", q, r.N, r.Features)
		}
		rel := make([]float64, dim)
		worst := 0.0
		for j, v := range want.SingularValues() {
			rel[j] = math.Abs(got.SingularValues()[j]-v) / v
			worst = math.Max(worst, rel[j])
		}
		angle := maxPrincipalAngle(got.Components(), want.Components())
		yg, err := got.Transform(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		alignSigns(yg, yw)
		var diff mat.Dense
		diff.Sub(yg, yw)
		tr := mat.Norm(&diff, math.Inf(1)) / mat.Norm(yw, math.Inf(1))
		t.Logf("randomized LSI, %d×%d, q = %d (%d passes), ℓ = %d: singular values' relative errors %.3g; largest principal angle %.3g°; Transform %.3g",
			n, d, q, q+2, dim+DefaultLSIOversample, rel, angle, tr)
		if power == 2 && (worst > 1e-8 || angle > 0.01 || tr > 2e-5) {
			t.Errorf("q = 2: singular values to %.3g, angle %.3g°, Transform %.3g; want 1e-8, 0.01°, 2e-5", worst, angle, tr)
		}
	}
}

// TestFitLSIRandomizedExact: forced on narrow rows (40 terms, sparse and
// dense, the randomized solver with ℓ = 40 = D: the basis spans the whole
// term space, so the Ritz step is exact), with q = 0 and q = 1, the model
// equals FitLSI's exact Gram path (principal angles ≤ 1e-8°, singular
// values to 1e-10); the options are checked.
func TestFitLSIRandomizedExact(t *testing.T) {
	const n, d, dim = 500, 40, 4
	docs, dense := lsiDocs(n, d, 13)
	for _, tc := range []struct {
		name string
		x    *mat.Dense
	}{{"sparse", docs}, {"dense", dense}} {
		var rows []Row
		for i := range n {
			rows = append(rows, Row{ID: "r", X: tc.x.RawRowView(i)})
		}
		shards := [][]Row{rows[:3], {}, append(append([]Row{}, rows[3:300]...), Row{ID: "text", Err: "unparsable"}), rows[300:]}
		gram := runFit(t, shards, 1, func(s beam.Scope, rows beam.PCollection, path string) beam.PCollection {
			return FitLSI(s, rows, dim, path)
		}).(*engine.LSIModel)
		for _, power := range []int{-1, 1} {
			got := runFit(t, shards, 1, func(s beam.Scope, rows beam.PCollection, path string) beam.PCollection {
				return FitLSIWith(s, rows, LSIOptions{Dim: dim, Solver: LSIRandomized, Power: power, Oversample: d, Seed: 2}, path)
			}).(*engine.LSIModel)
			if a := maxPrincipalAngle(got.Components(), gram.Components()); a > 1e-8 {
				t.Errorf("%s, power %d: largest principal angle %.3g° > 1e-8°", tc.name, power, a)
			}
			for j, v := range gram.SingularValues() {
				if g := got.SingularValues()[j]; math.Abs(g-v) > 1e-10*v {
					t.Errorf("%s, power %d: singular value %d: %.17g, want %.17g", tc.name, power, j, g, v)
				}
			}
			if r := got.Report(); r.N != n {
				t.Errorf("%s: fitted on %d rows, want %d", tc.name, r.N, n)
			}
		}
	}
	for _, o := range []LSIOptions{{Solver: "qr"}, {Dim: -1}, {Oversample: -2}} {
		if err := CheckLSIOptions(o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	if s, _ := (LSIOptions{Terms: MaxLSITerms}).solver(); s != LSIGram {
		t.Errorf("auto at %d terms: %s", MaxLSITerms, s)
	}
	if s, _ := (LSIOptions{}).solver(); s != LSIGram {
		t.Errorf("auto, terms unknown: %s", s)
	}
}
