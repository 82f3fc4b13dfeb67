package main

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestFitStratifiedCommand runs fit -method pca -sample 20 -stratify grp
// on the same 120 rows (strata x: 100, y: 19, z: 1; the stratum column
// between the features) written as three shards and as one shard: both
// models are fitted on 20 rows and have the same embedding (the same
// sample however the input is sharded), and that embedding holds the one
// row of stratum z (its feature f1 is 1000, far from every other row's).
// -stratify with lsi, with project and naming the ID column are usage
// errors.
func TestFitStratifiedCommand(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(9, 9))
	var lines []string
	for i := range 120 {
		grp, f1 := "x", rng.NormFloat64()
		switch {
		case i == 77:
			grp, f1 = "z", 1000
		case i%6 == 0:
			grp = "y"
		}
		lines = append(lines, fmt.Sprintf("r%d,%v,%s,%v,%v", i, f1, grp, rng.NormFloat64(), rng.NormFloat64()))
	}
	const header = "id,f1,grp,f2,f3\n"
	for name, split := range map[string][]int{"three": {0, 13, 70, 120}, "one": {0, 120}} {
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		for k := range len(split) - 1 {
			body := header + strings.Join(lines[split[k]:split[k+1]], "\n") + "\n"
			if err := os.WriteFile(filepath.Join(dir, name, fmt.Sprintf("s%d.csv", k)), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var stderr bytes.Buffer
	emb := map[string]*mat.Dense{}
	for _, name := range []string{"three", "one"} {
		model := filepath.Join(dir, name+".bin")
		if err := run([]string{"fit", "-method", "pca", "-sample", "20", "-stratify", "grp", "-seed", "2", "-id", "id",
			"-input", filepath.Join(dir, name, "*.csv"), "-model", model}, &stderr); err != nil {
			t.Fatalf("fit %s: %v\n%s", name, err, stderr.String())
		}
		m := loadModelFile(t, model)
		if m.Report().N != 20 || m.Report().Features != 3 {
			t.Errorf("%s: model fitted on %d rows of %d features, want 20 of 3", name, m.Report().N, m.Report().Features)
		}
		emb[name] = mat.DenseCopyOf(m.Embedding())
	}
	if !mat.Equal(emb["three"], emb["one"]) {
		t.Error("three shards and one shard gave different samples")
	}
	// The z row dominates the first component: one coordinate far out.
	far := 0
	for i := range 20 {
		if v := emb["one"].At(i, 0); v > 500 || v < -500 {
			far++
		}
	}
	if far != 1 {
		t.Errorf("%d sampled rows far out on the first component, want the one row of stratum z", far)
	}
	glob := filepath.Join(dir, "one", "*.csv")
	for _, args := range [][]string{
		{"fit", "-method", "lsi", "-stratify", "grp", "-input", glob, "-model", filepath.Join(dir, "x.bin")},
		{"project", "-stratify", "grp", "-input", glob, "-model", filepath.Join(dir, "one.bin"), "-output", filepath.Join(dir, "o")},
		{"fit", "-method", "pca", "-sample", "20", "-stratify", "id", "-id", "id", "-input", glob, "-model", filepath.Join(dir, "x.bin")},
	} {
		if err := run(args, &stderr); !errors.Is(err, errUsage) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}
