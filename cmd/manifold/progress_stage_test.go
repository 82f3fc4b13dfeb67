package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/manifoldlab/manifold/dataio"
)

// TestProgressGeodesicsFraction runs Isomap through the command with the
// progress bar on: the geodesics stage, the long one, shows a fraction and
// an ETA, not only the stage's name and a clock. The bar's clock advances
// 150 ms at every reading: the stage takes some 30 ms on 2500 points, too
// short for the real clock to let the bar redraw within it.
func TestProgressGeodesicsFraction(t *testing.T) {
	var ticks atomic.Int64
	start := time.Now()
	defer func(c func() time.Time) { progressClock = c }(progressClock)
	progressClock = func() time.Time { return start.Add(time.Duration(ticks.Add(1)) * 150 * time.Millisecond) }
	in := filepath.Join(t.TempDir(), "roll.csv")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := dataio.WriteCSV(f, rollRows(2500, 4)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"embed", "-method", "isomap", "-k", "8", "-in", in, "-out", filepath.Join(t.TempDir(), "y.csv")},
		env{stdout: &out, stderr: &errb, terminal: true})
	if code != 0 {
		t.Fatalf("status %d: %s", code, errb.String())
	}
	re := regexp.MustCompile(`isomap geodesics +\[[=> ]{30}\] +\d+% [0-9.ms]+ ETA [0-9.ms]+`)
	if !re.MatchString(errb.String()) {
		t.Fatalf("no geodesics fraction in the bar:\n%q", errb.String())
	}
}
