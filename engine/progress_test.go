package engine

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The stages that can run for seconds report Done/Total (so a progress bar
// shows a fraction and an ETA): the neighbour search by rows (exact and
// NN-descent), Lanczos and the shift-invert eigensolve by products against
// their budget, LSQR by iterations. Each reports a Total, never goes back,
// and ends at Done = Total.
func TestSlowStagesReportProgress(t *testing.T) {
	ctx := context.Background()
	x := swissRows(1200, 5)
	docs := mat.NewDense(300, 40, nil)
	for i := 0; i < 300; i++ {
		for j := 0; j < 40; j++ {
			if (i*7+j*13)%5 == 0 {
				docs.Set(i, j, float64(1+(i+j)%3))
			}
		}
	}
	cases := []struct {
		name   string
		stages []string
		fit    func(o Options) error
	}{
		{"isomap/lanczos", []string{"neighbors", "eigensolve"}, func(o Options) error {
			_, err := Isomap{K: 8, Eigensolver: EigenLanczos, Options: o}.Fit(ctx, x)
			return err
		}},
		{"lle", []string{"neighbors", "eigensolve"}, func(o Options) error {
			_, err := LLE{K: 10, Eigensolver: EigenLanczos, Options: o}.Fit(ctx, x)
			return err
		}},
		{"laplacian/approx", []string{"neighbors", "eigensolve"}, func(o Options) error {
			o.Neighbors = Neighbors{Search: NeighborsApprox}
			_, err := LaplacianEigenmaps{K: 10, Options: o}.Fit(ctx, x)
			return err
		}},
		{"isoprojection", []string{"neighbors", "regression"}, func(o Options) error {
			_, err := IsoProjection{K: 8, Options: o}.Fit(ctx, x)
			return err
		}},
		{"lsi/lanczos", []string{"eigensolve"}, func(o Options) error {
			_, err := LSI{Dim: 3, Eigensolver: EigenLanczos, Options: o}.Fit(ctx, docs)
			return err
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			last := map[string]Progress{}
			err := c.fit(Options{Progress: func(p Progress) {
				if p.Total == 0 {
					return
				}
				if l, ok := last[p.Stage]; ok && (p.Done < l.Done || p.Total != l.Total) {
					t.Errorf("stage %s: %+v after %+v", p.Stage, p, l)
				}
				if p.Done > p.Total || p.Done < 0 {
					t.Errorf("stage %s: %+v", p.Stage, p)
				}
				last[p.Stage] = p
			}})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range c.stages {
				l, ok := last[s]
				if !ok || l.Done != l.Total {
					t.Errorf("stage %s: last report %+v (reported %v)", s, l, ok)
				}
			}
		})
	}
}
