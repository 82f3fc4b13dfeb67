package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
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
	skipUnderRace(t, "the -max-iter bounds")
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

// TestUsageIsTheContract: the synopsis the command prints, the one the
// package documentation shows and the command-line contract of
// docs/design.md are the same lines, and every flag embed and neighbors
// define is named there — a flag added in one place only fails here.
func TestUsageIsTheContract(t *testing.T) {
	// synopsis is text's lines from "manifold embed" to "manifold info",
	// trimmed, without the contract's comments.
	synopsis := func(text, prefix string) []string {
		var lines []string
		for _, l := range strings.Split(text, "\n") {
			l = strings.TrimSpace(strings.TrimPrefix(l, prefix))
			if len(lines) == 0 && !strings.HasPrefix(l, "manifold embed ") ||
				!strings.HasPrefix(l, "manifold ") && !strings.HasPrefix(l, "[") { // the contract's comments go on
				continue
			}
			if i := strings.Index(l, "  #"); i >= 0 {
				l = strings.TrimSpace(l[:i])
			}
			lines = append(lines, strings.ReplaceAll(l, "…", "..."))
			if strings.HasPrefix(l, "manifold info") {
				break
			}
		}
		return lines
	}
	design, err := os.ReadFile("../../docs/design.md")
	if err != nil {
		t.Fatalf("the contract: %v", err)
	}
	contract := string(design)
	start := strings.Index(contract, "## Command-line contract")
	if start < 0 {
		t.Fatal(`docs/design.md has no "## Command-line contract"`)
	}
	contract = contract[start:]
	contract = contract[strings.Index(contract, "```\n")+4:]
	contract = contract[:strings.Index(contract, "```")]
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	want := synopsis(contract, "")
	if len(want) < 12 {
		t.Fatalf("the contract's synopsis is %d lines: %q", len(want), want)
	}
	for name, got := range map[string][]string{"usage": synopsis(usage, ""), "doc.go": synopsis(string(doc), "//\t")} {
		if !slices.Equal(got, want) {
			t.Errorf("%s's synopsis:\n%s\nthe contract's:\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	named := strings.Join(want, " ")
	unlisted := map[string]bool{"plot-size": true, "recall-sample": true} // described in -h and doc.go only
	for _, sub := range []string{"embed", "neighbors"} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{sub, "-h"}, env{stdout: &out, stderr: &errb}); code != 0 {
			t.Fatalf("%s -h: status %d, %s", sub, code, errb.String())
		}
		flags := 0
		for _, l := range strings.Split(out.String(), "\n") {
			if !strings.HasPrefix(l, "  -") {
				continue
			}
			flags++
			name := strings.Fields(l)[0][1:]
			if !unlisted[name] && !strings.Contains(named, "-"+name+" ") && !strings.Contains(named, "-"+name+"]") {
				t.Errorf("%s -%s is not in the command-line contract", sub, name)
			}
		}
		if flags < 5 {
			t.Errorf("%s -h lists %d flags:\n%s", sub, flags, out.String())
		}
	}
}
