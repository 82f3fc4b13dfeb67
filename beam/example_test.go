//go:build !beam_unit

package manifoldbeam_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	manifoldbeam "github.com/manifoldlab/manifold/beam"
	"github.com/manifoldlab/manifold/engine"
)

// Fit Landmark Isomap on a sample of 150 of 400 rows of a spiral, then map
// every row with the model: the pipeline runs on the in-process prism
// runner here, and on Flink, Spark or Dataflow unchanged.
func ExampleFitSample() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	var rows []manifoldbeam.Row
	for i := range 400 {
		t := 3 * math.Pi * float64(i) / 400
		rows = append(rows, manifoldbeam.Row{ID: fmt.Sprint(i), X: []float64{t * math.Cos(t), t * math.Sin(t), float64(i%7) / 10}})
	}
	model := filepath.Join(dir, "lm.bin")

	p, s := beam.NewPipelineWithRoot()
	in := beam.CreateList(s, rows)
	manifoldbeam.FitSample(s, in, manifoldbeam.SampleFit{Method: "landmark-isomap", K: 8, Landmarks: 30, Size: 150, Seed: 1}, model)
	if err := ptest.Run(p); err != nil {
		fmt.Println(err)
		return
	}

	p, s = beam.NewPipelineWithRoot()
	emb, dead := manifoldbeam.Project(s, model, beam.CreateList(s, rows), manifoldbeam.ProjectOptions{})
	manifoldbeam.WriteCSV(s, filepath.Join(dir, "out"), emb, dead)
	if err := ptest.Run(p); err != nil {
		fmt.Println(err)
		return
	}
	f, _ := os.Open(model)
	defer f.Close()
	m, err := engine.Load(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = os.Stat(filepath.Join(dir, "out", "_SUCCESS"))
	fmt.Println(m.Method(), "fitted on", m.Report().N, "rows; every row mapped:", err == nil)
	// Output: landmark-isomap fitted on 150 rows; every row mapped: true
}
