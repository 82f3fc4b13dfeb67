package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/manifoldlab/manifold/dataio"
)

// TestProgressGeodesicsFraction runs Isomap through the command with the
// progress bar on: the geodesics stage, the long one, shows a fraction and
// an ETA, not only the stage's name and a clock.
func TestProgressGeodesicsFraction(t *testing.T) {
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
