package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/internal/testmode"
)

// methodArgs are the settings that let a method fit the 120-point test
// roll (testData) from the command line.
func methodArgs(name string) []string {
	switch name {
	case "lowrank-isomap":
		return []string{"-landmarks", "6", "-alpha", "0.5"}
	case "lda":
		return []string{"-labels", "roll.labels"}
	}
	return nil
}

// The bad-input matrix from the command line, for every method of the
// table: each bad file or setting ends with status 1 and one line on
// standard error that names the input and the problem, never a panic.
func TestBadInputEveryMethod(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "every method on every bad input")
	dir := t.TempDir()
	x := testData(t, dir)
	put := func(name, content string) { putFile(t, filepath.Join(dir, name), content) }
	copyFixture := func(name string) {
		b, err := os.ReadFile(filepath.Join("..", "..", "dataio", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		put(name, string(b))
	}
	n, _ := x.Dims()
	put("empty.csv", "")
	put("header.csv", "x,y,z\n")
	put("one.csv", "1,2,3\n")
	put("ragged.csv", "1,2,3\n4,5\n")
	put("binary.csv", "\x00\xff\x10PK\x03\x04\x00\x00garbage")
	var constant strings.Builder
	for i := 0; i < 40; i++ {
		constant.WriteString("1,2,3\n")
	}
	put("constant.csv", constant.String())
	nan := mat.DenseCopyOf(x)
	nan.Set(3, 1, math.NaN())
	var npy bytes.Buffer
	if err := dataio.WriteNPY(&npy, nan); err != nil {
		t.Fatal(err)
	}
	put("nan.npy", npy.String())
	npy.Reset()
	dataio.WriteNPY(&npy, x)
	put("truncated.npy", npy.String()[:npy.Len()-20])
	for _, f := range []string{"complex.npy", "strings.npy", "structured.npy", "longdouble.npy", "empty.npy"} {
		copyFixture(f)
	}
	put("range.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n4 2 1\n")
	put("huge.mtx", "%%MatrixMarket matrix coordinate real general\n99999999999 3 1\n1 1 1\n")
	put("short.labels", strings.Repeat("a\n", n-1))
	put("quoted.csv", "x,y,z\n\"1\",2,3\n")
	put("hex.csv", "1,2,0x1p-2\n4,5,6\n")
	put("sep.csv", "1,2,3\n4,5_000,6\n")
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"-in", "empty.csv"}, []string{"empty.csv", "empty"}},
		{[]string{"-in", "header.csv"}, []string{"header.csv"}},
		{[]string{"-in", "one.csv"}, []string{"one.csv"}}, // too few samples, or no second dimension (LSI, TDPM)
		{[]string{"-in", "ragged.csv"}, []string{"ragged.csv", "line 2"}},
		{[]string{"-in", "binary.csv"}, []string{"binary.csv"}},
		{[]string{"-in", "constant.csv"}, []string{"constant.csv"}}, // "the same point", or LSI's rank
		{[]string{"-in", "nan.npy"}, []string{"nan.npy", "NaN"}},
		{[]string{"-in", "truncated.npy"}, []string{"truncated.npy", "truncated"}},
		{[]string{"-in", "complex.npy"}, []string{"complex.npy"}},
		{[]string{"-in", "strings.npy"}, []string{"strings.npy"}},
		{[]string{"-in", "structured.npy"}, []string{"structured.npy"}},
		{[]string{"-in", "longdouble.npy"}, []string{"longdouble.npy"}},
		{[]string{"-in", "empty.npy"}, []string{"empty.npy"}},
		{[]string{"-in", "range.mtx"}, []string{"range.mtx", "out of range"}},
		{[]string{"-in", "huge.mtx"}, []string{"huge.mtx", "99999999999 rows"}},
		{[]string{"-in", "roll.csv", "-labels", "short.labels"}, []string{"short.labels", fmt.Sprintf("%d labels for the %d samples", n-1, n)}},
		{[]string{"-in", "roll.csv", "-dim", fmt.Sprint(n)}, []string{"roll.csv", "dim"}},
		// The input itself counts against the budget: refused while
		// reading, or by the fit's estimate.
		{[]string{"-in", "roll.csv", "-max-memory", "2KB"}, []string{"roll.csv", "memory budget"}},
		{[]string{"-in", "quoted.csv"}, []string{"quoted.csv: line 2, column 1", "is quoted"}},
		{[]string{"-in", "hex.csv"}, []string{"hex.csv: line 1, column 3", "hexadecimal"}},
		{[]string{"-in", "sep.csv"}, []string{"sep.csv: line 2, column 2", "digit separator"}},
		{[]string{"-in", "roll.csv", "-dim", "2", "-dim", "3"}, []string{"-dim given twice"}},
		{[]string{"-in", "roll.csv", "-max-memory", "lots"}, []string{`invalid value "lots" for flag -max-memory`}},
		{[]string{"-in", "roll.csv", "-max-memory", "-1GB"}, []string{"cannot be negative"}},
	}
	for _, m := range methods {
		t.Run(m.Name, func(t *testing.T) {
			for _, c := range cases {
				args := append([]string{"embed", "-method", m.Name}, c.args...)
				want := c.want
				if m.NeedsLabels && !strings.Contains(strings.Join(c.args, " "), ".labels") {
					// The roll's labels: with other data the error may be
					// about their number, naming the data file still.
					args = append(args, "-labels", "roll.labels")
					if c.args[1] != "roll.csv" {
						want = []string{c.args[1]}
					}
				}
				mustFail(t, dir, want, args...)
			}
			if !m.NeedsLabels {
				// The built-in roll (2000 points, not read from a file)
				// against a budget below any fit of it.
				mustFail(t, dir, []string{"memory budget exceeded", "needs about", "cheaper"}, "embed", "-method", m.Name, "-max-memory", "20KB")
			}
			if m.reads("k") {
				mustFail(t, dir, []string{"roll.csv", "too few samples"}, append([]string{"embed", "-method", m.Name, "-in", "roll.csv", "-k", fmt.Sprint(n)}, methodArgs(m.Name)...)...)
			}
			// Within a generous budget the same fit succeeds.
			mustSucceed(t, dir, append([]string{"embed", "-method", m.Name, "-in", "roll.csv", "-max-memory", "1GiB", "-out", m.Name + ".csv"}, methodArgs(m.Name)...)...)
		})
	}
}

// A model file that is damaged, of another format version or not a model
// at all is refused by project with one line naming the file, for every
// method.
func TestBadModelFilesEveryMethod(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "every method's damaged model files")
	dir := t.TempDir()
	testData(t, dir)
	for _, m := range methods {
		model := m.Name + ".model"
		mustSucceed(t, dir, append([]string{"embed", "-method", m.Name, "-in", "roll.csv", "-model", model, "-out", "y.csv"}, methodArgs(m.Name)...)...)
		good, err := os.ReadFile(filepath.Join(dir, model))
		if err != nil {
			t.Fatal(err)
		}
		damage := map[string][]byte{
			"truncated": good[:len(good)/2],
			"flipped":   append(append([]byte(nil), good[:len(good)/3]...), append([]byte{good[len(good)/3] ^ 0x10}, good[len(good)/3+1:]...)...),
			"version":   append(append([]byte(nil), good[:8]...), append(binary.LittleEndian.AppendUint32(nil, 7), good[12:]...)...),
			"csv":       []byte("1,2,3\n"),
			"empty":     nil,
		}
		for what, b := range damage {
			putFile(t, filepath.Join(dir, "bad.model"), string(b))
			want := []string{"bad.model", "bad model file"}
			if what == "version" {
				want = append(want, "format version 7")
			}
			mustFail(t, dir, want, "project", "-model", "bad.model", "-in", "roll.csv")
		}
		// The right model with data of the wrong width.
		putFile(t, filepath.Join(dir, "wide.csv"), "1,2,3,4\n5,6,7,8\n")
		mustFail(t, dir, []string{"wide.csv", "4 features", model}, "project", "-model", model, "-in", "wide.csv")
	}
}

// The graph methods with a -disconnected policy: two clusters far apart
// are refused by "error" (naming the components), embedded whole by
// "connect" and in part by "largest"; ε with an isolated point likewise.
func TestDisconnectedEveryMethod(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "every method on disconnected graphs")
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 60; i++ {
		c := float64(100 * (i / 30))
		a := 2 * math.Pi * float64(i%30) / 30
		fmt.Fprintf(&b, "%g,%g,%g\n", c+math.Cos(a), math.Sin(a), 0.1*float64(i%3))
	}
	putFile(t, filepath.Join(dir, "two.csv"), b.String())
	b.WriteString("50,50,50\n")
	putFile(t, filepath.Join(dir, "outlier.csv"), b.String())
	for _, m := range methods {
		if !m.reads("disconnected") {
			continue
		}
		mustFail(t, dir, []string{"two.csv", "2 connected components", "connect", "largest"}, "embed", "-method", m.Name, "-k", "4", "-in", "two.csv")
		for _, policy := range []string{"connect", "largest"} {
			r := mustSucceed(t, dir, "embed", "-method", m.Name, "-k", "4", "-in", "two.csv", "-disconnected", policy)
			want := 60
			if policy == "largest" {
				want = 30
			}
			if got := parseCSV(t, r.stdout); got.RawMatrix().Rows != want {
				t.Errorf("%s, -disconnected %s: %d rows, want %d", m.Name, policy, got.RawMatrix().Rows, want)
			}
		}
		mustFail(t, dir, []string{"outlier.csv", "connected components"}, "embed", "-method", m.Name, "-eps", "0.8", "-in", "outlier.csv")
	}
}

func TestParseByteSize(t *testing.T) {
	for s, want := range map[string]int64{
		"0": 0, "1024": 1024, "500MB": 500e6, "8GiB": 8 << 30, "1.5 GB": 1.5e9, "64kib": 64 << 10, "2TB": 2e12, "3b": 3,
	} {
		if got, err := parseByteSize(s); err != nil || got != want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "MB", "-1GB", "lots", "1e400", "0.5", "NaN", "Inf", "0x10"} {
		if v, err := parseByteSize(s); err == nil {
			t.Errorf("parseByteSize(%q) = %d, want an error", s, v)
		}
	}
}
