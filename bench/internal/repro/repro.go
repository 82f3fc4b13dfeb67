// Package repro holds what the paper reproductions under bench/repro share:
// reading the real data sets of ../shared/data, describing the machine, and
// writing a section of bench/RESULTS.md and PNG figures.
package repro

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/engine/metrics"
	"github.com/manifoldlab/manifold/sparse"
)

// DataDir is the shared data folder: $MANIFOLD_DATA, or ../shared/data from
// the repository root (where `go run ./bench/repro/...` runs).
func DataDir() string {
	if d := os.Getenv("MANIFOLD_DATA"); d != "" {
		return d
	}
	return filepath.Join("..", "shared", "data")
}

// Fatal prints the error and exits with status 1.
func Fatal(prog string, err error) {
	fmt.Fprintf(os.Stderr, "%s: %v\n", prog, err)
	os.Exit(1)
}

func missing(path string, err error) error {
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s not found: the real data sets live in ../shared/data beside the repository (or set MANIFOLD_DATA); they are not part of the repository", path)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// LoadX reads <tag>_X.npy as float64 (pixels stay on their 0–255 scale).
func LoadX(tag string) (*mat.Dense, error) {
	path := filepath.Join(DataDir(), tag, tag+"_X.npy")
	f, err := os.Open(path)
	if err != nil {
		return nil, missing(path, err)
	}
	defer f.Close()
	x, err := dataio.ReadNPY(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return x, nil
}

// LoadInts reads one integer per line from <tag>/<name>.
func LoadInts(tag, name string) ([]int, error) {
	path := filepath.Join(DataDir(), tag, name)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, missing(path, err)
	}
	var out []int
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		v, err := strconv.ParseFloat(strings.TrimSpace(line), 64)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, i+1, err)
		}
		out = append(out, int(v))
	}
	return out, nil
}

// LoadY reads the class labels <tag>_y.txt.
func LoadY(tag string) ([]int, error) { return LoadInts(tag, tag+"_y.txt") }

// LoadFloats reads a whitespace- or comma-separated matrix of numbers from
// <tag>/<name>, one row per line.
func LoadFloats(tag, name string) (*mat.Dense, error) {
	path := filepath.Join(DataDir(), tag, name)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, missing(path, err)
	}
	var data []float64
	rows, cols := 0, 0
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
		if cols == 0 {
			cols = len(f)
		}
		if len(f) != cols {
			return nil, fmt.Errorf("%s line %d: %d fields, expected %d", path, i+1, len(f), cols)
		}
		for _, s := range f {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, fmt.Errorf("%s line %d: %w", path, i+1, err)
			}
			data = append(data, v)
		}
		rows++
	}
	return mat.NewDense(rows, cols, data), nil
}

// LoadReuters reads the Reuters-21578 term-frequency matrix (documents ×
// terms) and its labels.
func LoadReuters() (*sparse.CSR, []int, error) { return LoadCorpus("reuters21578") }

// LoadCorpus reads a sparse corpus of the data folder, <tag>/<tag>_X.mtx.gz
// (documents × terms) and <tag>/<tag>_y.txt (a label per document).
func LoadCorpus(tag string) (*sparse.CSR, []int, error) {
	path := filepath.Join(DataDir(), tag, tag+"_X.mtx.gz")
	x, err := sparse.ReadMatrixMarketFile(path)
	if err != nil {
		return nil, nil, missing(path, err)
	}
	y, err := LoadY(tag)
	if err != nil {
		return nil, nil, err
	}
	if n, _ := x.Dims(); n != len(y) {
		return nil, nil, fmt.Errorf("%s: %d documents, %d labels", tag, n, len(y))
	}
	return x, y, nil
}

// Machine describes where a figure was measured: CPU, cores, OS, Go, the
// backend and its threads, the commit and the date.
func Machine() string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "model name") {
				if i := strings.Index(line, ":"); i >= 0 {
					cpu = strings.TrimSpace(line[i+1:])
				}
				break
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb float64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %f kB", &kb); err == nil {
			mem = fmt.Sprintf(", %.0f GiB", kb/(1<<20))
		}
	}
	return fmt.Sprintf("%s, %d cores (GOMAXPROCS %d)%s, %s/%s, %s, backend %s, commit %s, %s",
		cpu, runtime.NumCPU(), runtime.GOMAXPROCS(0), mem, runtime.GOOS, runtime.GOARCH,
		runtime.Version(), backend.Info(), Commit(), time.Now().Format("2006-01-02 15:04 MST"))
}

// Commit is the repository's current commit (short), with "+dirty" when
// the working tree has changes.
func Commit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		c += "+dirty"
	}
	return c
}

// ResultsPath is bench/RESULTS.md from the repository root.
const ResultsPath = "bench/RESULTS.md"

// UpdateSection replaces the section named name in the Markdown file at
// path — the lines between "<!-- begin name -->" and "<!-- end name -->"
// — by body, or appends it (markers included) when the file has none. Every
// other part of the file is kept as it is.
func UpdateSection(path, name, body string) error {
	begin, end := "<!-- begin "+name+" -->", "<!-- end "+name+" -->"
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	s := string(old)
	block := begin + "\n" + strings.TrimRight(body, "\n") + "\n" + end
	i, j := strings.Index(s, begin), strings.Index(s, end)
	switch {
	case i >= 0 && j > i:
		s = s[:i] + block + s[j+len(end):]
	case i >= 0 || j >= 0:
		return fmt.Errorf("%s: unmatched markers of section %q", path, name)
	default:
		if s == "" {
			s = "# Results\n\nMeasurements, paper reproductions and peer comparisons of manifold. Each section is written by the command it names (sections between `<!-- begin … -->` and `<!-- end … -->` markers are replaced when the command runs again; the rest of this file is kept).\n"
		}
		s = strings.TrimRight(s, "\n") + "\n\n" + block
	}
	return os.WriteFile(path, []byte(strings.TrimRight(s, "\n")+"\n"), 0o644)
}

// Table is a Markdown table.
type Table struct {
	Header []string
	Rows   [][]string
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// Markdown renders the table.
func (t *Table) Markdown() string {
	var b strings.Builder
	b.WriteString("| " + strings.Join(t.Header, " | ") + " |\n|")
	for range t.Header {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	return b.String()
}

// PM formats a summary of fractions as percentages "95.10 ± 0.20".
func PM(s metrics.Summary) string {
	return fmt.Sprintf("%.2f ± %.2f", 100*s.Mean, 100*s.Std)
}

// MeanStd returns the mean and sample standard deviation of v.
func MeanStd(v []float64) (float64, float64) {
	s := metrics.Summarize(v)
	return s.Mean, s.Std
}

// Seconds formats a duration in seconds with three significant digits.
func Seconds(s float64) string {
	switch {
	case s >= 100:
		return fmt.Sprintf("%.0f", s)
	case s >= 10:
		return fmt.Sprintf("%.1f", s)
	case s >= 1:
		return fmt.Sprintf("%.2f", s)
	default:
		return fmt.Sprintf("%.3f", s)
	}
}

// Diff formats ours − paper in points, flagging differences above 2.
func Diff(ours, paper float64) string {
	d := ours - paper
	if math.Abs(d) > 2 {
		return fmt.Sprintf("**%+.1f**", d)
	}
	return fmt.Sprintf("%+.1f", d)
}
