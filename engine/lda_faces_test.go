package engine

import (
	"context"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/internal/testmode"
)

// The Table 2 protocol of Cai, He & Han, AAAI 2007 (Cai, He & Han, AAAI
// 2007) with LDA at c − 1 dimensions on orl32 and yale32, every Gp/Pq
// (p = 2 … 8 training images per person, 3 random splits each): the data
// scaled to [0, 1], projection vectors scaled to unit length (LDA.m), 1-NN
// on the test images. The default (svd) solver must beat 1-NN on the raw
// pixels at every Gp/Pq — the engine's Fisherfaces solver did not at G2 on
// Yale (bench/RESULTS.md, faces-table2: 44.5 % against 45.6 %), and the
// issue's held-out faces fell to 27.6 % with it — and, averaged over the
// seven Gp/Pq of a set, score at least the Fisherfaces solver's average (a
// single cell of 3 splits, 45 test images at Yale G8, is too noisy to rank
// the two).
func TestLDATable2Faces(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "real-data protocol")
	ctx := context.Background()
	for _, tag := range []string{"orl32", "yale32"} {
		x := loadShared(t, tag)
		y := loadSharedLabels(t, tag)
		x.Scale(1.0/255, x)
		n, d := x.Dims()
		order, byClass := classOrder(y)
		rng := rand.New(rand.NewPCG(16, 2))
		var sumSVD, sumFF float64
		for p := 2; p <= 8; p++ {
			var accSVD, accFF, accRaw float64
			const splits = 3
			for s := 0; s < splits; s++ {
				tr, te := splitPerClass(rng, order, byClass, p)
				xtr, xte := pickRows(x, tr), pickRows(x, te)
				ytr, yte := pickInts(y, tr), pickInts(y, te)
				accRaw += nearestNeighbourAccuracy(xtr, xte, ytr, yte)
				for _, solver := range []LDASolver{LDASVD, LDAFisherfaces} {
					m, err := LDA{Labels: ytr, Solver: solver}.Fit(ctx, xtr)
					if err != nil {
						t.Fatalf("%s G%d %s: %v", tag, p, solver, err)
					}
					w := m.Projection()
					_, dim := w.Dims()
					if dim != len(order)-1 {
						t.Fatalf("%s G%d %s: %d directions, want c − 1 = %d", tag, p, solver, dim, len(order)-1)
					}
					for j := 0; j < dim; j++ {
						col := w.ColView(j).(*mat.VecDense)
						col.ScaleVec(1/mat.Norm(col, 2), col)
					}
					var a, b mat.Dense
					a.Mul(xtr, w)
					b.Mul(xte, w)
					acc := nearestNeighbourAccuracy(&a, &b, ytr, yte)
					if solver == LDASVD {
						accSVD += acc
					} else {
						accFF += acc
					}
				}
			}
			accSVD, accFF, accRaw = 100*accSVD/splits, 100*accFF/splits, 100*accRaw/splits
			t.Logf("%s (%d×%d) G%d: LDA svd %.1f %%, fisherfaces %.1f %%, 1-NN pixels %.1f %%", tag, n, d, p, accSVD, accFF, accRaw)
			if accSVD <= accRaw {
				t.Errorf("%s G%d: LDA (svd) %.1f %% not above 1-NN on the pixels %.1f %%", tag, p, accSVD, accRaw)
			}
			sumSVD += accSVD / 7
			sumFF += accFF / 7
		}
		t.Logf("%s mean over G2–G8: LDA svd %.1f %%, fisherfaces %.1f %%", tag, sumSVD, sumFF)
		if sumSVD < sumFF {
			t.Errorf("%s: LDA (svd) %.1f %% on average below Fisherfaces %.1f %%", tag, sumSVD, sumFF)
		}
	}
}
