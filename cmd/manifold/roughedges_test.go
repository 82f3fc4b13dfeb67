package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestHelpOnceAndComplete: -h prints the usage once, and embed's lists
// every method of the table.
func TestHelpOnceAndComplete(t *testing.T) {
	for _, sub := range []string{"embed", "project", "serve", "demo"} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{sub, "-h"}, env{stdout: &out, stderr: &errb}); code != 0 {
			t.Errorf("%s -h: status %d, %s", sub, code, errb.String())
		}
		if n := strings.Count(out.String(), "usage:"); n != 1 {
			t.Errorf("%s -h printed the usage %d times", sub, n)
		}
		if sub == "embed" {
			for _, m := range methods {
				if !strings.Contains(embedHelp, m.Name+",") && !strings.Contains(embedHelp, m.Name+".") {
					t.Errorf("embed -h does not list %s", m.Name)
				}
			}
			if !strings.Contains(out.String(), "lda: classes − 1") {
				t.Error("embed -h does not say LDA's default dimension")
			}
		}
	}
}

// TestOutDashAndDevNull: -out - writes CSV to standard output, -out
// /dev/null writes no embedding while -report is still written.
func TestOutDashAndDevNull(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"embed", "-method", "pca", "-out", "-", "-quiet"}, env{stdout: &out, stderr: &errb}); code != 0 {
		t.Fatalf("-out -: status %d, %s", code, errb.String())
	}
	if n := strings.Count(out.String(), "\n"); n != 2000 {
		t.Errorf("-out -: %d lines on standard output, want 2000", n)
	}
	out.Reset()
	rep := dir + "/r.json"
	if code := run(context.Background(), []string{"embed", "-method", "pca", "-out", os.DevNull, "-report", rep, "-quiet"}, env{stdout: &out, stderr: &errb}); code != 0 {
		t.Fatalf("-out /dev/null: status %d, %s", code, errb.String())
	}
	if out.Len() != 0 {
		t.Errorf("-out /dev/null wrote %d bytes to standard output", out.Len())
	}
	if _, err := os.Stat(rep); err != nil {
		t.Errorf("-report with -out /dev/null: %v", err)
	}
}

// TestMaxIterBoundsIsoProjection: -max-iter reaches LSQR (the report's
// regression iterations stay within it) and is refused for other methods.
func TestMaxIterBoundsIsoProjection(t *testing.T) {
	rep := t.TempDir() + "/r.json"
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"embed", "-method", "isoprojection", "-max-iter", "2", "-out", os.DevNull, "-report", rep, "-quiet"}, env{stdout: &out, stderr: &errb}); code != 0 {
		t.Fatalf("status %d, %s", code, errb.String())
	}
	b, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Stages []struct {
			Name       string
			Iterations int
		}
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range r.Stages {
		if s.Name == "regression" {
			found = true
			if s.Iterations < 1 || s.Iterations > 2 {
				t.Errorf("regression ran %d iterations with -max-iter 2", s.Iterations)
			}
		}
	}
	if !found {
		t.Errorf("no regression stage in %s", b)
	}
	errb.Reset()
	if code := run(context.Background(), []string{"embed", "-method", "pca", "-max-iter", "2"}, env{stdout: &out, stderr: &errb}); code != 1 || !strings.Contains(errb.String(), "-max-iter does not apply") {
		t.Errorf("pca -max-iter: status %d, %q", code, errb.String())
	}
}
