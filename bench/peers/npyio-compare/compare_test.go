// Package npybench compares the engine's .npy reader (dataio) with
// github.com/sbinet/npyio on USPS (9298×256 float64) and on the bad files
// of dataio's tests. It is its own module so that the root module does not
// take npyio as a dependency. Run from this directory:
//
//	go test -run TestBadFiles -v . && go test -run '^$' -bench . -benchmem -count 3 .
//
// The figures and the decision are in docs/design.md ("Readers").
package npybench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/manifoldlab/manifold/dataio"
	"github.com/sbinet/npyio"
	"gonum.org/v1/gonum/mat"
)

var usps = "../../../../shared/data/usps9298/usps9298_X.npy"

func BenchmarkDataio(b *testing.B) {
	raw, err := os.ReadFile(usps)
	if err != nil {
		b.Skipf("USPS not available (../shared/data): %v", err)
	}
	b.SetBytes(int64(len(raw)))
	for i := 0; i < b.N; i++ {
		if _, err := dataio.ReadNPYCtx(context.Background(), bytes.NewReader(raw), dataio.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNpyio(b *testing.B) {
	raw, err := os.ReadFile(usps)
	if err != nil {
		b.Skipf("USPS not available (../shared/data): %v", err)
	}
	b.SetBytes(int64(len(raw)))
	for i := 0; i < b.N; i++ {
		var m mat.Dense
		if err := npyio.Read(bytes.NewReader(raw), &m); err != nil {
			b.Fatal(err)
		}
	}
}

// The bad files of dataio's tests, and forged headers: what each reader does.
func TestBadFiles(t *testing.T) {
	files, _ := filepath.Glob("../../../dataio/testdata/*.npy")
	good, err := os.ReadFile(usps)
	if err != nil {
		t.Skipf("USPS not available (../shared/data): %v", err)
	}
	cases := map[string][]byte{}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		cases[filepath.Base(f)] = b
	}
	cases["truncated"] = good[:len(good)/2]
	huge := bytes.Replace(good, []byte("(9298, 256)"), []byte("(92980000, 25600)"), 1)
	cases["huge-shape"] = huge
	cases["neg-shape"] = bytes.Replace(good, []byte("(9298, 256)"), []byte("(-9298, 256)"), 1)
	for name, b := range cases {
		func() {
			defer func() {
				if p := recover(); p != nil {
					fmt.Printf("%-20s npyio PANIC %v\n", name, p)
				}
			}()
			var m mat.Dense
			err := npyio.Read(bytes.NewReader(b), &m)
			_, err2 := dataio.ReadNPYCtx(context.Background(), bytes.NewReader(b), dataio.Limits{MaxBytes: 1 << 30})
			fmt.Printf("%-20s npyio: %v | dataio: %v\n", name, err, err2)
		}()
	}
}
