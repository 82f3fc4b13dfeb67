package metrics

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/sparse"
)

type fixtures struct {
	Labelings []struct {
		Truth, Pred []int
		NMI, AC     float64
	}
	Assign []struct {
		Cost  [][]float64
		Total float64
	}
	Neighborhood []struct {
		Name            string
		X, Y            [][]float64
		K               []int
		Trustworthiness []float64
		Continuity      []float64
	}
	Residual struct {
		X, Y, Geodesics    [][]float64
		K                  int
		ResidualVariance   float64 `json:"residual_variance"`
		ResidualVariance1D float64 `json:"residual_variance_1d"`
	}
	Procrustes []struct {
		A, B      [][]float64
		Disparity float64
	}
	OneNN struct {
		X           [][]float64
		Y           []int
		Train, Test []int
		Accuracy    float64
	}
	FLDALOO struct {
		X        [][]float64
		Y        []int
		Accuracy float64
	} `json:"flda_loo"`
}

func loadFixtures(t *testing.T) fixtures {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "sklearn_metrics.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f fixtures
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

func dense(rows [][]float64) *mat.Dense {
	m := mat.NewDense(len(rows), len(rows[0]), nil)
	for i, r := range rows {
		m.SetRow(i, r)
	}
	return m
}

func close(a, b, tol float64) bool { return math.Abs(a-b) <= tol*max(1, math.Abs(b)) }

// bruteAssign is the least total cost over every injective map of the
// smaller side into the larger.
func bruteAssign(cost [][]float64) float64 {
	r, c := len(cost), len(cost[0])
	best := math.Inf(1)
	used := make([]bool, max(r, c))
	var rec func(i int, sum float64)
	if r <= c {
		rec = func(i int, sum float64) {
			if i == r {
				best = min(best, sum)
				return
			}
			for j := 0; j < c; j++ {
				if !used[j] {
					used[j] = true
					rec(i+1, sum+cost[i][j])
					used[j] = false
				}
			}
		}
	} else {
		rec = func(j int, sum float64) {
			if j == c {
				best = min(best, sum)
				return
			}
			for i := 0; i < r; i++ {
				if !used[i] {
					used[i] = true
					rec(j+1, sum+cost[i][j])
					used[i] = false
				}
			}
		}
	}
	rec(0, 0)
	return best
}

func checkAssignment(t *testing.T, cost [][]float64, assign []int, total float64) {
	t.Helper()
	r, c := len(cost), len(cost[0])
	seen := map[int]bool{}
	sum, n := 0.0, 0
	for i, j := range assign {
		if j < 0 {
			continue
		}
		if j >= c || seen[j] {
			t.Fatalf("row %d → column %d: not a valid assignment %v", i, j, assign)
		}
		seen[j] = true
		sum += cost[i][j]
		n++
	}
	if n != min(r, c) {
		t.Fatalf("%d rows assigned of %d×%d", n, r, c)
	}
	if !close(sum, total, 1e-12) {
		t.Fatalf("reported total %v, assignment sums to %v", total, sum)
	}
}

func TestAssignBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		r, c := 1+rng.IntN(6), 1+rng.IntN(6)
		cost := make([][]float64, r)
		for i := range cost {
			cost[i] = make([]float64, c)
			for j := range cost[i] {
				if trial%3 == 0 {
					cost[i][j] = float64(rng.IntN(4)) // ties
				} else {
					cost[i][j] = rng.NormFloat64() * 10
				}
			}
		}
		assign, total, err := Assign(cost)
		if err != nil {
			t.Fatal(err)
		}
		checkAssignment(t, cost, assign, total)
		if want := bruteAssign(cost); !close(total, want, 1e-12) {
			t.Fatalf("%d×%d: total %v, brute force %v\n%v", r, c, total, want, cost)
		}
	}
}

func TestAssignScipy(t *testing.T) {
	for _, a := range loadFixtures(t).Assign {
		assign, total, err := Assign(a.Cost)
		if err != nil {
			t.Fatal(err)
		}
		checkAssignment(t, a.Cost, assign, total)
		if !close(total, a.Total, 1e-12) {
			t.Errorf("%d×%d: total %v, scipy linear_sum_assignment %v", len(a.Cost), len(a.Cost[0]), total, a.Total)
		}
	}
}

func TestAssignErrors(t *testing.T) {
	if _, _, err := Assign([][]float64{{1, 2}, {3}}); !errors.Is(err, ErrInput) {
		t.Errorf("ragged: %v", err)
	}
	if _, _, err := Assign([][]float64{{1, math.NaN()}}); !errors.Is(err, ErrInput) {
		t.Errorf("NaN: %v", err)
	}
	if a, tot, err := Assign(nil); err != nil || a != nil || tot != 0 {
		t.Errorf("empty: %v %v %v", a, tot, err)
	}
}

func TestClusteringAccuracyHand(t *testing.T) {
	truth := []int{0, 0, 0, 1, 1, 2}
	// Clusters 5 → 0 (2 right), 7 → 1 (2 right), 9 → 2 (1 right): 5/6.
	pred := []int{5, 5, 7, 7, 7, 9}
	ac, err := ClusteringAccuracy(truth, pred)
	if err != nil || !close(ac, 5.0/6, 1e-15) {
		t.Fatalf("AC = %v, %v; want 5/6", ac, err)
	}
	// Renaming the clusters changes nothing.
	ren := []int{1, 1, -3, -3, -3, 0}
	if ac2, _ := ClusteringAccuracy(truth, ren); ac2 != ac {
		t.Errorf("renamed clusters: %v, want %v", ac2, ac)
	}
	// More clusters than classes: the best three clusters map, the fourth is wrong.
	ac, _ = ClusteringAccuracy([]int{0, 0, 1, 1}, []int{0, 1, 2, 3})
	if ac != 0.5 {
		t.Errorf("4 singleton clusters of 2 classes: %v, want 0.5", ac)
	}
	// A greedy mapping (each cluster to its majority class) would give 4/5 here;
	// one-to-one gives 3/5: clusters a and b both have majority class 0.
	ac, _ = ClusteringAccuracy([]int{0, 0, 0, 1, 0}, []int{7, 7, 8, 8, 8})
	if !close(ac, 3.0/5, 1e-15) {
		t.Errorf("one-to-one: %v, want 3/5", ac)
	}
	if _, err := ClusteringAccuracy([]int{1}, []int{1, 2}); !errors.Is(err, ErrInput) {
		t.Errorf("length mismatch: %v", err)
	}
}

func TestNMIHand(t *testing.T) {
	cases := []struct {
		truth, pred []int
		want        float64
	}{
		{[]int{0, 0, 1, 1}, []int{1, 1, 0, 0}, 1},
		{[]int{0, 0, 1, 1}, []int{0, 1, 0, 1}, 0},
		{[]int{0, 0, 1, 1}, []int{3, 3, 3, 3}, 0},
		{[]int{4, 4, 4}, []int{2, 2, 2}, 1},
	}
	// truth 0,0,0,1 against 0,0,1,1: MI = ½ln(4/3) + ¼ln(2/3) + ¼ln 2,
	// H(pred) = ln 2, H(truth) = −(¾ln¾ + ¼ln¼).
	mi := 0.5*math.Log(4.0/3) + 0.25*math.Log(2.0/3) + 0.25*math.Log(2)
	ht := -(0.75*math.Log(0.75) + 0.25*math.Log(0.25))
	cases = append(cases, struct {
		truth, pred []int
		want        float64
	}{[]int{0, 0, 0, 1}, []int{0, 0, 1, 1}, mi / ((ht + math.Log(2)) / 2)})
	for _, c := range cases {
		got, err := NMI(c.truth, c.pred)
		if err != nil || !close(got, c.want, 1e-14) {
			t.Errorf("NMI(%v, %v) = %v, %v; want %v", c.truth, c.pred, got, err, c.want)
		}
		if sym, _ := NMI(c.pred, c.truth); !close(sym, got, 1e-14) {
			t.Errorf("NMI not symmetric: %v vs %v", sym, got)
		}
	}
}

func TestSklearnLabelings(t *testing.T) {
	for i, l := range loadFixtures(t).Labelings {
		nmi, err := NMI(l.Truth, l.Pred)
		if err != nil || !close(nmi, l.NMI, 1e-12) {
			t.Errorf("case %d: NMI %v (%v), scikit-learn %v", i, nmi, err, l.NMI)
		}
		ac, err := ClusteringAccuracy(l.Truth, l.Pred)
		if err != nil || !close(ac, l.AC, 1e-15) {
			t.Errorf("case %d: AC %v (%v), scipy linear_sum_assignment %v", i, ac, err, l.AC)
		}
	}
}

func TestTrustworthinessHand(t *testing.T) {
	// Six points on a line at 0, 1, 3, 6, 10, 15; the embedding swaps the
	// last two. With k = 1 only points 4 and 5 change nearest neighbour, each
	// to its second-nearest in the data (rank 2, penalty 1): T = 1 − 2·2/(6·1·8)
	// = 11/12, and by the same count C = 11/12.
	x := mat.NewDense(6, 1, []float64{0, 1, 3, 6, 10, 15})
	y := mat.NewDense(6, 1, []float64{0, 1, 3, 6, 15, 10})
	ctx := context.Background()
	tw, err := Trustworthiness(ctx, x, y, 1)
	if err != nil || !close(tw, 11.0/12, 1e-15) {
		t.Errorf("T = %v, %v; want 11/12", tw, err)
	}
	c, err := Continuity(ctx, x, y, 1)
	if err != nil || !close(c, 11.0/12, 1e-15) {
		t.Errorf("C = %v, %v; want 11/12", c, err)
	}
	if one, _ := Trustworthiness(ctx, x, x, 2); one != 1 {
		t.Errorf("T(x, x) = %v, want 1", one)
	}
	if _, err := Trustworthiness(ctx, x, y, 3); !errors.Is(err, ErrInput) {
		t.Errorf("k = n/2: %v", err)
	}
	if _, err := Trustworthiness(ctx, x, y.Slice(0, 5, 0, 1), 1); !errors.Is(err, ErrInput) {
		t.Errorf("row mismatch: %v", err)
	}
}

func TestTrustworthinessTies(t *testing.T) {
	// Distances that tie: the rank of a tied neighbour is decided by the
	// lower index. In x, point 2 (at 2) has points 1 and 3 at distance 1,
	// ranked 1 and 2; the embedding moves it next to point 3, so with k = 1
	// its embedded neighbour 3 has data rank 2: penalty 1.
	x := mat.NewDense(7, 1, []float64{0, 1, 2, 3, 4.5, 6.5, 9})
	y := mat.NewDense(7, 1, []float64{0, 1, 2.8, 3, 4.5, 6.5, 9})
	// In y: 0→1, 1→0, 2→3, 3→2, 4→3, 5→4, 6→5. In x: 0→1, 1→0 (tie with 2,
	// lower index), 2→1 (tie with 3), 3→2, 4→3, 5→4, 6→5. Only point 2
	// differs: its embedded neighbour 3 has data rank 2. T = 1 − 2·1/(7·1·10).
	tw, err := Trustworthiness(context.Background(), x, y, 1)
	if err != nil || !close(tw, 1-2.0/70, 1e-15) {
		t.Errorf("T = %v, %v; want 34/35", tw, err)
	}
}

func TestSklearnNeighborhood(t *testing.T) {
	ctx := context.Background()
	for _, c := range loadFixtures(t).Neighborhood {
		x, y := dense(c.X), dense(c.Y)
		for q, k := range c.K {
			tw, err := Trustworthiness(ctx, x, y, k)
			if err != nil || !close(tw, c.Trustworthiness[q], 1e-12) {
				t.Errorf("%s k=%d: trustworthiness %v (%v), scikit-learn %v", c.Name, k, tw, err, c.Trustworthiness[q])
			}
			co, err := Continuity(ctx, x, y, k)
			if err != nil || !close(co, c.Continuity[q], 1e-12) {
				t.Errorf("%s k=%d: continuity %v (%v), scikit-learn (roles swapped) %v", c.Name, k, co, err, c.Continuity[q])
			}
		}
	}
}

func TestResidualVariance(t *testing.T) {
	// Hand case: D_G over 3 points, a 1-D embedding 0, 1, 3; over the nine
	// entries Σa = 8, Σb = 12, Σa² = 12, Σb² = 28, Σab = 18, so
	// R² = (22/3)² / ((44/9)·12) = 11/12 and 1 − R² = 1/12.
	dg := mat.NewDense(3, 3, []float64{0, 1, 2, 1, 0, 1, 2, 1, 0})
	y := mat.NewDense(3, 1, []float64{0, 1, 3})
	rv, err := ResidualVariance(dg, y)
	if err != nil || !close(rv, 1.0/12, 1e-14) {
		t.Errorf("hand case: %v, %v; want 1/12", rv, err)
	}
	// An affine function of the distances: 0 (to rounding).
	y2 := mat.NewDense(3, 1, []float64{5, 3, 1}) // distances 2·dg
	if rv, _ := ResidualVariance(dg, y2); rv > 1e-14 {
		t.Errorf("scaled isometry: %v, want 0", rv)
	}
	if _, err := ResidualVariance(mat.NewDense(3, 3, nil), y); !errors.Is(err, ErrInput) {
		t.Errorf("constant distances: %v", err)
	}
	inf := mat.NewDense(2, 2, []float64{0, math.Inf(1), math.Inf(1), 0})
	if _, err := ResidualVariance(inf, mat.NewDense(2, 1, []float64{0, 1})); !errors.Is(err, ErrInput) {
		t.Errorf("infinite geodesic: %v", err)
	}

	// scikit-learn's Isomap geodesics and embedding, numpy's corrcoef.
	f := loadFixtures(t).Residual
	dgRef := dense(f.Geodesics)
	rv, err = ResidualVariance(dgRef, dense(f.Y))
	if err != nil || !close(rv, f.ResidualVariance, 1e-10) {
		t.Errorf("swiss roll: %v (%v), numpy %v", rv, err, f.ResidualVariance)
	}
	y1 := dense(f.Y).Slice(0, len(f.Y), 0, 1)
	if rv, _ := ResidualVariance(dgRef, y1); !close(rv, f.ResidualVariance1D, 1e-10) {
		t.Errorf("swiss roll 1-D: %v, numpy %v", rv, f.ResidualVariance1D)
	}
	g, err := Geodesics(context.Background(), dense(f.X), f.K)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(g, dgRef, 1e-9) {
		t.Errorf("Geodesics differ from scikit-learn's Isomap dist_matrix_")
	}
}

func TestProcrustes(t *testing.T) {
	// scipy's docstring example: b is a rotated, shifted, scaled, mirrored a.
	a := mat.NewDense(4, 2, []float64{1, 3, 1, 2, 1, 1, 2, 1})
	b := mat.NewDense(4, 2, []float64{4, -2, 4, -4, 4, -6, 2, -6})
	if d, err := Procrustes(a, b); err != nil || d > 1e-14 {
		t.Errorf("similar configurations: %v, %v; want 0", d, err)
	}
	for i, p := range loadFixtures(t).Procrustes {
		d, err := Procrustes(dense(p.A), dense(p.B))
		if err != nil || !close(d, p.Disparity, 1e-10) {
			t.Errorf("case %d: %v (%v), scipy %v", i, d, err, p.Disparity)
		}
	}
	if _, err := Procrustes(a, mat.NewDense(4, 2, nil)); !errors.Is(err, ErrInput) {
		t.Errorf("single point: %v", err)
	}
}

func TestOneNN(t *testing.T) {
	f := loadFixtures(t).OneNN
	x := dense(f.X)
	acc, err := OneNN(context.Background(), Rows(x, f.Train), Labels(f.Y, f.Train), Rows(x, f.Test), Labels(f.Y, f.Test))
	if err != nil || acc != f.Accuracy {
		t.Errorf("1-NN accuracy %v (%v), scikit-learn KNeighborsClassifier(1) %v", acc, err, f.Accuracy)
	}
	// Hand case on a line: train 0 (a), 10 (b); test 1 (a), 6 (b), 4 (a is right).
	tr := mat.NewDense(2, 2, []float64{0, 0, 10, 100})
	te := mat.NewDense(3, 2, []float64{1, 0, 6, 100, 4, 100})
	got, err := OneNNDims(context.Background(), tr, []int{1, 2}, te, []int{1, 2, 1}, []int{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	// First column only: 1→a, 6→b, 4→a: 3/3. Both columns: 4 is at (4, 100), nearer b: 2/3.
	if got[0] != 1 || !close(got[1], 2.0/3, 1e-15) {
		t.Errorf("OneNNDims = %v, want [1 2/3]", got)
	}
	if _, err := OneNN(context.Background(), tr, []int{1}, te, []int{1, 2, 1}); !errors.Is(err, ErrInput) {
		t.Errorf("label mismatch: %v", err)
	}
}

func TestSplits(t *testing.T) {
	sp, err := RatioSplits(50, 0.2, 4, 7)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := RatioSplits(50, 0.2, 4, 7)
	other, _ := RatioSplits(50, 0.2, 4, 8)
	for s, p := range sp {
		if len(p.Train) != 10 || len(p.Test) != 40 {
			t.Fatalf("split %d: %d + %d", s, len(p.Train), len(p.Test))
		}
		all := append(append([]int(nil), p.Train...), p.Test...)
		slices.Sort(all)
		for i, v := range all {
			if v != i {
				t.Fatalf("split %d does not partition 0…49", s)
			}
		}
		if !slices.Equal(p.Train, again[s].Train) {
			t.Errorf("same seed, different split %d", s)
		}
	}
	if slices.Equal(sp[0].Train, sp[1].Train) || slices.Equal(sp[0].Train, other[0].Train) {
		t.Errorf("splits repeat")
	}
	labels := []int{1, 1, 1, 2, 2, 2, 2, 3, 3, 3}
	pc, err := PerClassSplits(labels, 2, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pc {
		count := map[int]int{}
		for _, i := range p.Train {
			count[labels[i]]++
		}
		if len(p.Train) != 6 || count[1] != 2 || count[2] != 2 || count[3] != 2 {
			t.Errorf("G2 split: %v", p.Train)
		}
	}
	if _, err := PerClassSplits(labels, 3, 1, 1); !errors.Is(err, ErrInput) {
		t.Errorf("G3 with a class of 3: %v", err)
	}
	if _, err := RatioSplits(10, 1, 1, 1); !errors.Is(err, ErrInput) {
		t.Errorf("fraction 1: %v", err)
	}
}

// scaler is a Mapper that scales the rows.
type scaler float64

func (s scaler) Transform(_ context.Context, x mat.Matrix) (*mat.Dense, error) {
	var out mat.Dense
	out.Scale(float64(s), x)
	return &out, nil
}

func TestOneNNSplits(t *testing.T) {
	f := loadFixtures(t).OneNN
	x := dense(f.X)
	sp := []Split{{Train: f.Train, Test: f.Test}, {Train: f.Test, Test: f.Train}}
	base, err := OneNNSplits(context.Background(), x, f.Y, sp, nil)
	if err != nil {
		t.Fatal(err)
	}
	if base.Values[0] != f.Accuracy {
		t.Errorf("baseline split 0: %v, scikit-learn %v", base.Values[0], f.Accuracy)
	}
	fit := func(context.Context, mat.Matrix, []int) (Mapper, error) { return scaler(3), nil }
	scaled, err := OneNNSplits(context.Background(), x, f.Y, sp, fit)
	if err != nil || !slices.Equal(scaled.Values, base.Values) {
		t.Errorf("scaling changed 1-NN: %v vs %v (%v)", scaled.Values, base.Values, err)
	}
	m := (base.Values[0] + base.Values[1]) / 2
	sd := math.Abs(base.Values[0]-base.Values[1]) / math.Sqrt2
	if !close(base.Mean, m, 1e-15) || !close(base.Std, sd, 1e-12) {
		t.Errorf("summary %v ± %v, want %v ± %v", base.Mean, base.Std, m, sd)
	}
}

func TestKMeansAccuracy(t *testing.T) {
	// Four well-separated blobs: k-means finds them, AC = NMI = 1.
	rng := rand.New(rand.NewPCG(3, 4))
	n := 200
	x := mat.NewDense(n, 3, nil)
	truth := make([]int, n)
	for i := 0; i < n; i++ {
		truth[i] = i % 4
		for j := 0; j < 3; j++ {
			c := 0.0
			if j == truth[i]%3 {
				c = 20 * float64(1+truth[i]/3)
			}
			x.Set(i, j, c+rng.NormFloat64())
		}
	}
	pred, err := KMeans(context.Background(), x, 4, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	ac, _ := ClusteringAccuracy(truth, pred)
	nmi, _ := NMI(truth, pred)
	if ac != 1 || !close(nmi, 1, 1e-12) {
		t.Errorf("separated blobs: AC %v, NMI %v", ac, nmi)
	}
	// Sparse rows give the same clustering.
	sp, err := KMeans(context.Background(), sparse.FromDense(x), 4, 10, 1)
	if err != nil || !slices.Equal(sp, pred) {
		t.Errorf("sparse input: %v", err)
	}
	if _, err := KMeans(context.Background(), x, n+1, 1, 1); !errors.Is(err, ErrInput) {
		t.Errorf("k > n: %v", err)
	}
}

func TestFLDALeaveOneOut(t *testing.T) {
	f := loadFixtures(t).FLDALOO
	acc, err := FLDALeaveOneOut(context.Background(), dense(f.X), f.Y)
	if err != nil || !close(acc, f.Accuracy, 1e-15) {
		t.Errorf("FLDA leave-one-out %v (%v), scikit-learn LinearDiscriminantAnalysis + LeaveOneOut %v", acc, err, f.Accuracy)
	}
}

func TestTrustworthinessSwissRoll(t *testing.T) {
	// The 2-D ground truth (t, height) of a swiss roll is a trustworthy
	// embedding; its first two coordinates (a projection that overlays the
	// turns of the roll) are not.
	x, tt := datasets.SwissRoll(600, 0, 5)
	truth := mat.NewDense(600, 2, nil)
	for i := range tt {
		truth.Set(i, 0, tt[i])
		truth.Set(i, 1, x.At(i, 1))
	}
	ctx := context.Background()
	good, err := Trustworthiness(ctx, x, truth, 10)
	if err != nil {
		t.Fatal(err)
	}
	bad, _ := Trustworthiness(ctx, x, x.Slice(0, 600, 0, 2), 10)
	if good < 0.95 || bad > good-0.1 {
		t.Errorf("T(ground truth) = %v, T(projection) = %v", good, bad)
	}
}

// OneNNDims (distances accumulated over column blocks) agrees with OneNN
// (the neighbour search) on every prefix of the columns.
func TestOneNNDimsMatchesOneNN(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	n, m, d := 300, 700, 12 // m > 256: more than one chunk of test rows
	tr, te := mat.NewDense(n, d, nil), mat.NewDense(m, d, nil)
	ytr, yte := make([]int, n), make([]int, m)
	for i := 0; i < n; i++ {
		ytr[i] = rng.IntN(4)
		for j := 0; j < d; j++ {
			tr.Set(i, j, rng.NormFloat64()+float64(ytr[i]*(j%3)))
		}
	}
	for i := 0; i < m; i++ {
		yte[i] = rng.IntN(4)
		for j := 0; j < d; j++ {
			te.Set(i, j, rng.NormFloat64()+float64(yte[i]*(j%3)))
		}
	}
	ctx := context.Background()
	dims := []int{12, 1, 3, 5, 3}
	got, err := OneNNDims(ctx, tr, ytr, te, yte, dims)
	if err != nil {
		t.Fatal(err)
	}
	for k, dd := range dims {
		want, err := OneNN(ctx, tr.Slice(0, n, 0, dd), ytr, te.Slice(0, m, 0, dd), yte)
		if err != nil {
			t.Fatal(err)
		}
		if got[k] != want {
			t.Errorf("d = %d: OneNNDims %v, OneNN %v", dd, got[k], want)
		}
	}
}
