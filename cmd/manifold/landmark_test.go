package main

import (
	"fmt"
	"path/filepath"
	"testing"
)

// -landmark-k and -landmark-choice reach the landmark methods' settings
// (the report's parameters say what ran) and are refused where they mean
// nothing or are out of range.
func TestLandmarkFlags(t *testing.T) {
	skipUnderRace(t, "the landmark flags")
	dir := t.TempDir()
	testData(t, dir)
	for _, tc := range []struct{ method, choice, k, wantChoice, wantK string }{
		{"landmark-lle", "", "", "random", "3"}, // defaults: random, dim + 1
		{"landmark-lle", "kmeans++", "5", "kmeans++", "5"},
		{"landmark-lle", "maxmin", "2", "maxmin", "2"},
		{"landmark-isomap", "", "", "maxmin", ""},
		{"landmark-isomap", "maxmin", "", "maxmin", ""},
		{"landmark-isomap", "kmeans", "", "kmeans", ""},
	} {
		args := []string{"embed", "-method", tc.method, "-in", "roll.csv", "-landmarks", "30", "-out", "y.csv", "-report", "r.json", "-quiet"}
		if tc.choice != "" {
			args = append(args, "-landmark-choice", tc.choice)
		}
		if tc.k != "" {
			args = append(args, "-landmark-k", tc.k)
		}
		mustSucceed(t, dir, args...)
		p := readParams(t, filepath.Join(dir, "r.json"))
		if got := fmt.Sprint(p["choice"]); got != tc.wantChoice {
			t.Errorf("%v: report choice %s, want %s", args, got, tc.wantChoice)
		}
		if tc.wantK != "" {
			if got := fmt.Sprint(p["landmark_k"]); got != tc.wantK {
				t.Errorf("%v: report landmark_k %s, want %s", args, got, tc.wantK)
			}
		}
	}
	mustFail(t, dir, []string{"-landmark-choice", "centroids"}, "embed", "-method", "landmark-lle", "-in", "roll.csv", "-landmark-choice", "centroids")
	mustFail(t, dir, []string{"-landmark-k", "at least 1"}, "embed", "-method", "landmark-lle", "-in", "roll.csv", "-landmark-k", "0")
	mustFail(t, dir, []string{"-landmark-k"}, "embed", "-method", "landmark-isomap", "-in", "roll.csv", "-landmark-k", "3")
	mustFail(t, dir, []string{"-landmark-choice"}, "embed", "-method", "isomap", "-in", "roll.csv", "-landmark-choice", "random")
	mustFail(t, dir, []string{"landmark k"}, "embed", "-method", "landmark-lle", "-in", "roll.csv", "-landmarks", "4", "-landmark-k", "5")
}
