package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/internal/testmode"
)

// The tests run the built command end to end. TestMain builds it once, with
// the build tags, cgo setting and race detector of the test binary itself,
// so `go test -tags openblas` tests the OpenBLAS command.

var (
	binPath string
	goTool  string
)

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "manifold-cmd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binPath = filepath.Join(dir, "manifold")
	goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	args := []string{"build", "-o", binPath}
	env := os.Environ()
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "-tags":
				args = append(args, "-tags", s.Value)
			case "-race":
				if s.Value == "true" {
					args = append(args, "-race")
				}
			case "CGO_ENABLED":
				env = append(env, "CGO_ENABLED="+s.Value)
			}
		}
	}
	build := exec.Command(goTool, append(args, ".")...)
	build.Env = env
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the command: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

type result struct {
	code           int
	stdout, stderr string
	cpu            time.Duration // the process's user and system time (runLimited)
}

// runCmd runs the built command with args in dir.
func runCmd(t *testing.T, dir string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running manifold %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// mustSucceed runs the command and checks it exits 0 with nothing on
// standard error (stderr is a pipe: no progress bar).
func mustSucceed(t *testing.T, dir string, args ...string) result {
	t.Helper()
	r := runCmd(t, dir, args...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("manifold %s: exit %d, stderr %q", strings.Join(args, " "), r.code, r.stderr)
	}
	return r
}

// mustFail runs the command and checks the error contract: exit status 1,
// exactly one line on standard error, containing every want, and no trace
// of a Go panic.
func mustFail(t *testing.T, dir string, want []string, args ...string) {
	t.Helper()
	r := runCmd(t, dir, args...)
	line := strings.TrimSuffix(r.stderr, "\n")
	switch {
	case r.code != 1:
		t.Errorf("manifold %s: exit %d, want 1 (stderr %q)", strings.Join(args, " "), r.code, r.stderr)
	case !strings.HasSuffix(r.stderr, "\n") || strings.Contains(line, "\n"):
		t.Errorf("manifold %s: stderr is not exactly one line: %q", strings.Join(args, " "), r.stderr)
	case strings.Contains(r.stderr+r.stdout, "panic") || strings.Contains(r.stderr+r.stdout, "goroutine"):
		t.Errorf("manifold %s: panic trace: %q", strings.Join(args, " "), r.stderr)
	case !strings.HasPrefix(line, "manifold: "):
		t.Errorf("manifold %s: error %q does not start with \"manifold: \"", strings.Join(args, " "), line)
	}
	for _, w := range want {
		if !strings.Contains(line, w) {
			t.Errorf("manifold %s: error %q does not contain %q", strings.Join(args, " "), line, w)
		}
	}
}

func putFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// testData writes a 120-point swiss roll as CSV with a header, its labels
// (three classes along the roll) and returns the matrix.
func testData(t *testing.T, dir string) *mat.Dense {
	t.Helper()
	x, tt := swissRoll(120, 7)
	var b strings.Builder
	b.WriteString("x,y,z\n")
	dataio.WriteCSV(&b, x)
	putFile(t, filepath.Join(dir, "roll.csv"), b.String())
	class, _ := rollClasses(tt, 3)
	var l strings.Builder
	for _, c := range class {
		fmt.Fprintf(&l, "%s\n", []string{"inner", "middle", "outer"}[c])
	}
	putFile(t, filepath.Join(dir, "roll.labels"), l.String())
	return x
}

func parseCSV(t *testing.T, s string) *mat.Dense {
	t.Helper()
	m, err := dataio.ReadCSV(strings.NewReader(s))
	if err != nil {
		t.Fatalf("reading the command's CSV output: %v", err)
	}
	return m
}

func equalApprox(a, b mat.Matrix, tol float64) bool {
	ar, ac := a.Dims()
	br, bc := b.Dims()
	if ar != br || ac != bc {
		return false
	}
	return mat.EqualApprox(a, b, tol)
}

func TestInfo(t *testing.T) {
	r := mustSucceed(t, t.TempDir(), "info")
	d := backend.Info()
	for _, want := range []string{
		"version", "backend", d.Backend, d.Config, "GOMAXPROCS", "blas threads",
		runtime.Version(), "methods", "pca",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("info output lacks %q:\n%s", want, r.stdout)
		}
	}
}

func TestHelp(t *testing.T) {
	dir := t.TempDir()
	if r := mustSucceed(t, dir, "help"); !strings.Contains(r.stdout, "manifold embed") {
		t.Errorf("help: %q", r.stdout)
	}
	if r := mustSucceed(t, dir, "embed", "-h"); !strings.Contains(r.stdout, "-tangent-dim") {
		t.Errorf("embed -h: %q", r.stdout)
	}
}

// embed writes the embedding the engine computes, whatever the output.
func TestEmbedAndProject(t *testing.T) {
	dir := t.TempDir()
	x := testData(t, dir)
	want, err := engine.PCA{}.Fit(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}

	r := mustSucceed(t, dir, "embed", "-method", "pca", "-in", "roll.csv")
	if got := parseCSV(t, r.stdout); !equalApprox(got, want.Embedding(), 1e-12) {
		t.Fatalf("CSV on stdout differs from the engine's embedding")
	}

	mustSucceed(t, dir, "embed", "-method", "pca", "-in", "roll.csv", "-dim", "2", "-seed", "3",
		"-out", "y.npy", "-model", "pca.model", "-report", "report.json")
	y, err := dataio.ReadMatrixFile(filepath.Join(dir, "y.npy"))
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(y, want.Embedding()) {
		t.Fatalf("-out y.npy differs from the engine's embedding")
	}

	// The saved model maps the training rows onto their embedding.
	r = mustSucceed(t, dir, "project", "-model", "pca.model", "-in", "roll.csv")
	if got := parseCSV(t, r.stdout); !equalApprox(got, want.Embedding(), 1e-9) {
		t.Fatalf("project of the training data differs from the embedding")
	}
	mustSucceed(t, dir, "project", "-model", "pca.model", "-in", "roll.csv", "-out", "p.npy")
	p, err := dataio.ReadMatrixFile(filepath.Join(dir, "p.npy"))
	if err != nil {
		t.Fatal(err)
	}
	if !equalApprox(p, want.Embedding(), 1e-9) {
		t.Fatalf("project -out p.npy differs from the embedding")
	}
}

func TestProjectErrors(t *testing.T) {
	dir := t.TempDir()
	testData(t, dir)
	mustSucceed(t, dir, "embed", "-method", "pca", "-in", "roll.csv", "-model", "pca.model", "-out", "y.csv")
	putFile(t, filepath.Join(dir, "junk.model"), "MANIFOLD\x01\x00\x00\x00garbage")
	model, _ := os.ReadFile(filepath.Join(dir, "pca.model"))
	os.WriteFile(filepath.Join(dir, "cut.model"), model[:len(model)/2], 0o644)
	for _, tc := range []struct {
		want []string
		args []string
	}{
		{[]string{"-model is required"}, []string{"project", "-in", "roll.csv"}},
		{[]string{"-in is required"}, []string{"project", "-model", "pca.model"}},
		{[]string{"y.csv (2 features)", "pca model", "shape"}, []string{"project", "-model", "pca.model", "-in", "y.csv"}},
		{[]string{"junk.model", "bad model file"}, []string{"project", "-model", "junk.model", "-in", "roll.csv"}},
		{[]string{"cut.model", "bad model file"}, []string{"project", "-model", "cut.model", "-in", "roll.csv"}},
		{[]string{"missing.model: no such file"}, []string{"project", "-model", "missing.model", "-in", "roll.csv"}},
		{[]string{"roll.labels", "unknown input format"}, []string{"project", "-model", "pca.model", "-in", "roll.labels"}},
		{[]string{"-out out.txt", "unknown output format"}, []string{"project", "-model", "pca.model", "-in", "roll.csv", "-out", "out.txt"}},
	} {
		mustFail(t, dir, tc.want, tc.args...)
	}
}

func TestReport(t *testing.T) {
	dir := t.TempDir()
	testData(t, dir)
	mustSucceed(t, dir, "embed", "-method", "mds", "-in", "roll.csv", "-out", "y.csv", "-report", "r.json", "-quiet")
	b, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep map[string]any
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"method", "backend", "n", "features", "dim", "seconds", "stages", "peak_heap_bytes", "input", "params"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("report lacks %q", k)
		}
	}
	if rep["method"] != "mds" || rep["n"] != 120.0 || rep["features"] != 3.0 || rep["dim"] != 2.0 ||
		rep["backend"] != backend.Info().Backend || rep["input"] != "roll.csv" {
		t.Errorf("report: %v", rep)
	}
	stages, _ := rep["stages"].([]any)
	if len(stages) == 0 {
		t.Fatal("report has no stages")
	}
	for _, s := range stages {
		st := s.(map[string]any)
		for _, k := range []string{"name", "seconds", "flam_predicted", "iterations"} {
			if _, ok := st[k]; !ok {
				t.Errorf("stage %v lacks %q", st, k)
			}
		}
	}
}

// pixels counts the saturated (coloured, not grey) pixels of img inside r,
// and those within 40 of each of the colours.
func pixels(img image.Image, r image.Rectangle, colours []color.Color) (saturated int, near []int) {
	near = make([]int, len(colours))
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			r8, g8, b8 := int(cr>>8), int(cg>>8), int(cb>>8)
			if max(r8, g8, b8)-min(r8, g8, b8) > 40 {
				saturated++
			}
			for k, c := range colours {
				wr, wg, wb, _ := c.RGBA()
				if abs(r8-int(wr>>8)) < 40 && abs(g8-int(wg>>8)) < 40 && abs(b8-int(wb>>8)) < 40 {
					near[k]++
				}
			}
		}
	}
	return saturated, near
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func decodePNG(t *testing.T, path string, w, h int) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("%s is %d×%d pixels, asked for %d×%d", path, b.Dx(), b.Dy(), w, h)
	}
	return img
}

func TestPlot(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "PNG pictures (drawing, not concurrency)")
	dir := t.TempDir()
	testData(t, dir)
	mustSucceed(t, dir, "embed", "-method", "pca", "-in", "roll.csv", "-labels", "roll.labels",
		"-out", "y.csv", "-plot", "y.png", "-plot-size", "640x480")
	img := decodePNG(t, filepath.Join(dir, "y.png"), 640, 480)
	// The plot area (left of the legend, inside the axes): every class
	// colour must be there, one dot being about 20 pixels.
	var colours []color.Color
	for _, st := range classStyles(3) {
		colours = append(colours, st.Colour)
	}
	sat, near := pixels(img, image.Rect(60, 30, 520, 430), colours)
	if sat < 120*10 {
		t.Errorf("only %d coloured pixels in the plot area; points not drawn?", sat)
	}
	for k, n := range near {
		if n < 10 {
			t.Errorf("class %d colour: %d pixels", k, n)
		}
	}
	// The corners stay background.
	if sat, _ := pixels(img, image.Rect(0, 0, 8, 8), nil); sat != 0 {
		t.Errorf("%d coloured pixels in the corner", sat)
	}

	// Without labels, on the default data: coloured by the roll parameter,
	// default size 800×600.
	mustSucceed(t, dir, "embed", "-method", "pca", "-out", "d.npy", "-plot", "d.png")
	img = decodePNG(t, filepath.Join(dir, "d.png"), 800, 600)
	if sat, _ := pixels(img, image.Rect(60, 30, 680, 540), nil); sat < 2000*5 {
		t.Errorf("default data: only %d coloured pixels", sat)
	}
}

func TestDemo(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "the demo's fits and plot")
	dir := t.TempDir()
	r := mustSucceed(t, dir, "demo", "-plot", "demo.png", "-plot-size", "1000x450")
	for _, want := range []string{"2000-point swiss roll", "stage", "flam", "seconds", "GFLAM/s", "total", "demo.png"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("demo output lacks %q:\n%s", want, r.stdout)
		}
	}
	img := decodePNG(t, filepath.Join(dir, "demo.png"), 1000, 450)
	// The input (left half) and the embedding (right half) both drawn.
	for _, half := range []image.Rectangle{image.Rect(50, 20, 440, 400), image.Rect(510, 20, 880, 400)} {
		if sat, _ := pixels(img, half, nil); sat < 2000*3 {
			t.Errorf("demo picture: %d coloured pixels in %v", sat, half)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "manifold-demo.png")); err == nil {
		t.Error("demo wrote its default file despite -plot")
	}
	mustSucceed(t, dir, "demo", "-method", "pca", "-plot", "pca.png", "-quiet")
	mustFail(t, dir, []string{"-plot demo.jpg", "PNG"}, "demo", "-plot", "demo.jpg")
}

func TestInputFormats(t *testing.T) {
	skipUnderRace(t, "the input formats")
	dir := t.TempDir()
	x := testData(t, dir)
	want, err := engine.PCA{}.Fit(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}
	if err := dataio.WriteMatrixFile(filepath.Join(dir, "roll.npy"), x); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	dataio.WriteCSV(&b, x)
	putFile(t, filepath.Join(dir, "roll.csv.gz"), string(gzipBytes(t, b.Bytes())))
	for _, in := range []string{"roll.npy", "roll.csv.gz"} {
		r := mustSucceed(t, dir, "embed", "-method", "pca", "-in", in)
		if got := parseCSV(t, r.stdout); !equalApprox(got, want.Embedding(), 1e-12) {
			t.Errorf("%s: embedding differs", in)
		}
	}
	// A Fortran-order, big-endian int16 array written by numpy (values −5…6,
	// 3×4), against the same matrix as CSV.
	fixture, err := os.ReadFile("../../dataio/testdata/i2_be_f.npy")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "i2.npy"), fixture, 0o644)
	putFile(t, filepath.Join(dir, "i2.csv"), "-5,-4,-3,-2\n-1,0,1,2\n3,4,5,6\n")
	a := mustSucceed(t, dir, "embed", "-method", "pca", "-dim", "1", "-in", "i2.npy")
	c := mustSucceed(t, dir, "embed", "-method", "pca", "-dim", "1", "-in", "i2.csv")
	if a.stdout != c.stdout {
		t.Errorf("int16 Fortran NPY and CSV give different embeddings:\n%s\n%s", a.stdout, c.stdout)
	}
}

func gzipBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testData(t, dir)
	putFile(t, filepath.Join(dir, "ragged.csv"), "1,2,3\n4,5,6\n7,8\n")
	putFile(t, filepath.Join(dir, "text.csv"), "a,b\n1,2\n3,oops\n")
	putFile(t, filepath.Join(dir, "empty.csv"), "")
	putFile(t, filepath.Join(dir, "binary.npy"), "\x00\x01\x02\x03 not numpy at all \xff\xfe")
	var npy bytes.Buffer
	dataio.WriteNPY(&npy, mat.NewDense(20, 3, nil))
	putFile(t, filepath.Join(dir, "truncated.npy"), string(npy.Bytes()[:npy.Len()-13]))
	putFile(t, filepath.Join(dir, "short.labels"), "a\nb\nc\n")
	putFile(t, filepath.Join(dir, "gap.labels"), "a\n\nb\n")
	putFile(t, filepath.Join(dir, "data.txt"), "1,2\n3,4\n")
	putFile(t, filepath.Join(dir, "one.csv"), "1,2,3\n")
	putFile(t, filepath.Join(dir, "m.mtx"), "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.5\n")
	tests := []struct {
		want []string
		args []string
	}{
		{[]string{"no subcommand"}, nil},
		{[]string{`unknown subcommand "fold"`}, []string{"fold"}},
		{[]string{"-method is required"}, []string{"embed", "-in", "roll.csv"}},
		{[]string{`unknown method "tsne"`, "pca, mds, isomap"}, []string{"embed", "-method", "tsne"}},
		{[]string{"ragged.csv: line 3, column 3: row has 2 fields, want 3"}, []string{"embed", "-method", "pca", "-in", "ragged.csv"}},
		{[]string{`text.csv: line 3, column 2: "oops" is not a number`}, []string{"embed", "-method", "pca", "-in", "text.csv"}},
		{[]string{"empty.csv: empty file"}, []string{"embed", "-method", "pca", "-in", "empty.csv"}},
		{[]string{"binary.npy: npy: not a NumPy file"}, []string{"embed", "-method", "pca", "-in", "binary.npy"}},
		{[]string{"truncated.npy: npy: data truncated: shape (20, 3) of <f8 needs 480 bytes, the file has 467"}, []string{"embed", "-method", "pca", "-in", "truncated.npy"}},
		{[]string{"data.txt", `unknown input format ".txt"`}, []string{"embed", "-method", "pca", "-in", "data.txt"}},
		// Until the sparse package is on main, MatrixMarket input is refused.
		{[]string{"m.mtx:", "line 3"}, []string{"embed", "-method", "pca", "-in", "m.mtx"}},
		{[]string{"missing.csv: no such file or directory"}, []string{"embed", "-method", "pca", "-in", "missing.csv"}},
		{[]string{"short.labels: 3 labels for the 120 samples of roll.csv"}, []string{"embed", "-method", "pca", "-in", "roll.csv", "-labels", "short.labels"}},
		{[]string{"gap.labels: line 2: empty label"}, []string{"embed", "-method", "pca", "-in", "roll.csv", "-labels", "gap.labels"}},
		{[]string{"missing.labels: no such file"}, []string{"embed", "-method", "pca", "-in", "roll.csv", "-labels", "missing.labels"}},
		{[]string{"one.csv", "too few samples"}, []string{"embed", "-method", "pca", "-in", "one.csv"}},
		{[]string{"roll.csv", "dim = 4 exceeds"}, []string{"embed", "-method", "pca", "-in", "roll.csv", "-dim", "4"}},
		{[]string{"-dim must be at least 1, got 0"}, []string{"embed", "-method", "pca", "-dim", "0"}},
		{[]string{`invalid value "two" for flag -dim`}, []string{"embed", "-method", "pca", "-dim", "two"}},
		{[]string{"-k does not apply to method pca"}, []string{"embed", "-method", "pca", "-k", "5"}},
		{[]string{"-eps does not apply to method mds"}, []string{"embed", "-method", "mds", "-eps", "0.5"}},
		{[]string{"-disconnected does not apply to method pca"}, []string{"embed", "-method", "pca", "-disconnected", "connect"}},
		{[]string{"flag provided but not defined: -neighbours"}, []string{"embed", "-method", "pca", "-neighbours", "5"}},
		{[]string{`unexpected argument "roll.csv"`}, []string{"embed", "-method", "pca", "roll.csv"}},
		{[]string{"-out y.txt", `unknown output format ".txt"`}, []string{"embed", "-method", "pca", "-out", "y.txt"}},
		{[]string{"-plot y.svg", "PNG"}, []string{"embed", "-method", "pca", "-plot", "y.svg"}},
		{[]string{`-plot-size "big"`}, []string{"embed", "-method", "pca", "-plot", "y.png", "-plot-size", "big"}},
		{[]string{"-plot-size needs -plot"}, []string{"embed", "-method", "pca", "-plot-size", "300x300"}},
		{[]string{"nodir/y.csv: no such file or directory"}, []string{"embed", "-method", "pca", "-out", "nodir/y.csv"}},
		{[]string{"nodir/cpu.prof: no such file or directory"}, []string{"embed", "-method", "pca", "-cpuprofile", "nodir/cpu.prof"}},
	}

	// Graph-method flag checks, on a method of the table that reads them
	// (whether or not the engine has it yet, the flags are checked first
	// only once it exists).
	for _, m := range methods {
		if m.reads("k") {
			tests = append(tests, []struct {
				want []string
				args []string
			}{
				{[]string{"-k and -eps exclude each other"}, []string{"embed", "-method", m.Name, "-k", "5", "-eps", "1"}},
				{[]string{"-k must be at least 1, got -2"}, []string{"embed", "-method", m.Name, "-k", "-2"}},
				{[]string{"-k 0 (all of the class) needs -supervised"}, []string{"embed", "-method", m.Name, "-k", "0"}},
				{[]string{"-eps must be a positive finite radius"}, []string{"embed", "-method", m.Name, "-eps", "-1"}},
				{[]string{`-disconnected "sometimes": want error, connect or largest`}, []string{"embed", "-method", m.Name, "-disconnected", "sometimes"}},
				{[]string{"-supervised needs -labels"}, []string{"embed", "-method", m.Name, "-supervised"}},
				{[]string{`-supervised-geodesic "far": want constant or join`}, []string{"embed", "-method", "isomap", "-supervised-geodesic", "far"}},
				{[]string{"-supervised-geodesic needs -supervised"}, []string{"embed", "-method", "isomap", "-supervised-geodesic", "join"}},
				{[]string{"-supervised-geodesic does not apply to method lpp"}, []string{"embed", "-method", "lpp", "-supervised-geodesic", "join"}},
			}...)
			break
		}
	}
	for _, tc := range tests {
		mustFail(t, dir, tc.want, tc.args...)
	}
}

func TestCPUProfileLabels(t *testing.T) {
	testmode.Skip(t, "profiles a 0.3 s fit")
	dir := t.TempDir()
	// Isomap of a 3000-point swiss roll: its stages take about a second
	// together, enough for CPU samples at 100 Hz.
	x, _ := datasets.SwissRoll(3000, 0.05, 7)
	if err := dataio.WriteMatrixFile(filepath.Join(dir, "x.npy"), x); err != nil {
		t.Fatal(err)
	}
	mustSucceed(t, dir, "embed", "-method", "isomap", "-in", "x.npy", "-out", "y.npy",
		"-cpuprofile", "cpu.prof", "-memprofile", "mem.prof")
	out, err := exec.Command(goTool, "tool", "pprof", "-tags", binPath, filepath.Join(dir, "cpu.prof")).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof -tags: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "stage:") || !regexp.MustCompile(`(neighbors|geodesics|centering|eigensolve)`).MatchString(string(out)) {
		t.Errorf("the CPU profile has no samples labelled with an Isomap stage:\n%s", out)
	}
	out, err = exec.Command(goTool, "tool", "pprof", "-top", binPath, filepath.Join(dir, "mem.prof")).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "inuse_space") {
		t.Errorf("go tool pprof of the heap profile: %v\n%s", err, out)
	}
}

// An interrupt stops embed with status 1, one line, and no output file.
func TestInterrupt(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT on Windows")
	}
	testmode.Skip(t, "runs a fit of a few seconds")
	dir := t.TempDir()
	// Isomap of 6000 points: the geodesics alone take seconds, so the
	// interrupt lands inside the fit.
	x, _ := datasets.SwissRoll(6000, 0.05, 3)
	if err := dataio.WriteMatrixFile(filepath.Join(dir, "x.npy"), x); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binPath, "embed", "-method", "isomap", "-in", "x.npy", "-out", "y.csv")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		t.Fatal("the 6000-point fit ended within 300 ms, before the interrupt: the test proves nothing; enlarge its data")
	case <-time.After(300 * time.Millisecond):
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	<-done
	if code := cmd.ProcessState.ExitCode(); code != 1 || stderr.String() != "manifold: embed: interrupted\n" {
		t.Errorf("interrupted: exit %d, stderr %q", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "y.csv")); err == nil {
		t.Error("an interrupted run wrote its output")
	}
}

// A neighbour graph that falls apart: the error names the components and
// the -disconnected choices; "largest" embeds one part and the report lists
// the rows left out. Runs once a graph method is in the engine.
func TestDisconnected(t *testing.T) {
	skipUnderRace(t, "the -disconnected policies")
	name := ""
	for _, m := range methods {
		if m.reads("disconnected") && m.reads("k") {
			name = m.Name
			break
		}
	}
	if name == "" {
		t.Skip("no graph method in this build's engine yet")
	}
	dir := t.TempDir()
	var b strings.Builder
	var l strings.Builder
	for i := 0; i < 60; i++ { // two clusters 100 apart: 30 points on each of two circles
		c := float64(100 * (i / 30))
		a := 2 * math.Pi * float64(i%30) / 30
		fmt.Fprintf(&b, "%g,%g,%g\n", c+math.Cos(a), math.Sin(a), 0.1*float64(i%3))
		fmt.Fprintf(&l, "%d\n", i/30)
	}
	putFile(t, filepath.Join(dir, "two.csv"), b.String())
	putFile(t, filepath.Join(dir, "two.labels"), l.String())
	mustFail(t, dir, []string{"two.csv", "2 connected components", "connect", "largest"},
		"embed", "-method", name, "-k", "4", "-in", "two.csv")
	r := mustSucceed(t, dir, "embed", "-method", name, "-k", "4", "-in", "two.csv", "-disconnected", "largest",
		"-report", "r.json", "-labels", "two.labels", "-plot", "two.png")
	if got := parseCSV(t, r.stdout); got.RawMatrix().Rows != 30 {
		t.Errorf("largest: %d rows, want 30", got.RawMatrix().Rows)
	}
	var rep struct {
		Dropped []int `json:"dropped"`
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "r.json"))
	if err := json.Unmarshal(raw, &rep); err != nil || len(rep.Dropped) != 30 {
		t.Errorf("report dropped %v (%v)", rep.Dropped, err)
	}
	r = mustSucceed(t, dir, "embed", "-method", name, "-k", "4", "-in", "two.csv", "-disconnected", "connect")
	if got := parseCSV(t, r.stdout); got.RawMatrix().Rows != 60 {
		t.Errorf("connect: %d rows, want 60", got.RawMatrix().Rows)
	}
}

// skipUnderRace skips a test of what (flags, formats, settings) under the
// race detector.
func skipUnderRace(t *testing.T, what string) {
	t.Helper()
	if raceEnabled {
		t.Skipf("%s: flags and files, no goroutine of the command's own (the engine's race tests run its fits); the other runs have it", what)
	}
}
