package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime/pprof"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/internal/dataio"
)

const embedHelp = `usage: manifold embed -method NAME [flags]

Fits a method to the rows of -in (the default 2000-point swiss roll without
it) and writes the embedding: to -out (.csv or .npy), or as CSV to standard
output. Methods: ` + "pca, mds, isomap, landmark-isomap, lle, isoprojection, oip, soip, tdpm,\nlowrank-isomap, lpp, npe, lda, ltsa, laplacian, lsi." + `

flags:
`

// embedFlags are the values of the embed flags.
type embedFlags struct {
	method, in, labels                 string
	supervised, quiet                  bool
	dim, k, landmarks, tangentDim      int
	maxIter                            int
	eps, alpha                         float64
	disconnected                       string
	seed                               uint64
	out, model, plot, report, plotSize string
	cpuprofile, memprofile             string
	maxMemory                          byteSize
	plotW, plotH                       int
	set                                map[string]bool
	resolved                           *method
	inputName                          string
}

func cmdEmbed(ctx context.Context, args []string, e env) error {
	var f embedFlags
	fs := newFlagSet("embed", embedHelp, e)
	fs.StringVar(&f.method, "method", "", "the method: "+methodNames(false))
	fs.StringVar(&f.in, "in", "", "input `FILE`: .csv, .csv.gz, .npy, .mtx or .mtx.gz, rows = samples (default: the 2000-point swiss roll)")
	fs.StringVar(&f.labels, "labels", "", "class labels `FILE`, one per line (integers or strings): colours the plot, supervises -supervised and lda")
	fs.BoolVar(&f.supervised, "supervised", false, "neighbours only within the same class (needs -labels; -k 0: all of the class)")
	fs.IntVar(&f.dim, "dim", 0, "output dimension `D` (default 2; lda: classes − 1)")
	fs.IntVar(&f.k, "k", 0, "neighbours per point `K` (default: the method's)")
	fs.Float64Var(&f.eps, "eps", 0, "neighbourhood radius `E`, instead of -k")
	fs.Float64Var(&f.alpha, "alpha", 0, "regularization `A` of the method (default: the method's)")
	fs.IntVar(&f.landmarks, "landmarks", 0, "number of landmarks `L` (default: the method's)")
	fs.IntVar(&f.tangentDim, "tangent-dim", 0, "tangent-space dimension `T` of tdpm (default -dim)")
	fs.IntVar(&f.maxIter, "max-iter", 0, "bound `N` on the iterations of each regression of isoprojection (LSQR; default: the engine's, 2·features)")
	fs.StringVar(&f.disconnected, "disconnected", "error", "when the neighbour graph falls apart: error, connect or largest")
	fs.Uint64Var(&f.seed, "seed", 0, "random seed `S` (landmarks, initializations)")
	fs.StringVar(&f.out, "out", "", "write the embedding to `FILE` (.csv or .npy; - or default: CSV on standard output; /dev/null: not at all, when only -plot, -model or -report is wanted)")
	fs.StringVar(&f.model, "model", "", "save the fitted model to `FILE`, for manifold project")
	fs.StringVar(&f.plot, "plot", "", "draw the first two coordinates to `FILE.png`")
	fs.StringVar(&f.plotSize, "plot-size", "800x600", "size of the -plot picture in pixels, `WxH`")
	fs.StringVar(&f.report, "report", "", "write the stage report to `FILE.json`")
	fs.StringVar(&f.cpuprofile, "cpuprofile", "", "write a CPU profile to `FILE` (stages carry the pprof label stage)")
	fs.StringVar(&f.memprofile, "memprofile", "", "write a heap profile to `FILE` after the fit")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress bar")
	fs.Var(&f.maxMemory, "max-memory", "memory budget `SIZE` of the fit (500MB, 8GiB; default none): a method that would need more stops before allocating, naming its estimate and cheaper settings")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	f.set = setFlags(fs)
	if err := f.check(); err != nil {
		return err
	}

	prof, err := startProfiles(f.cpuprofile, f.memprofile)
	if err != nil {
		return err
	}
	err = f.run(ctx, e)
	if perr := prof.stop(); err == nil {
		err = perr
	}
	return err
}

// check validates the flags before any work: the method, which flags it
// reads, the values, the output names.
func (f *embedFlags) check() error {
	m, err := lookupMethod(f.method)
	if err != nil {
		return err
	}
	f.resolved = m
	for _, name := range []string{"k", "eps", "alpha", "landmarks", "tangent-dim", "disconnected", "supervised", "max-iter"} {
		if f.set[name] && !m.reads(name) {
			return fmt.Errorf("-%s does not apply to method %s%s", name, m.name, readsList(m))
		}
	}
	switch {
	case f.set["dim"] && f.dim < 1:
		return fmt.Errorf("-dim must be at least 1, got %d", f.dim)
	case f.set["max-iter"] && f.maxIter < 1:
		return fmt.Errorf("-max-iter must be at least 1, got %d", f.maxIter)
	case f.set["k"] && f.set["eps"]:
		return errors.New("-k and -eps exclude each other: a neighbour graph is either k nearest or within a radius")
	case f.set["k"] && f.k < 0:
		return fmt.Errorf("-k must be at least 1, got %d", f.k)
	case f.set["k"] && f.k == 0 && !f.supervised:
		return errors.New("-k 0 (all of the class) needs -supervised")
	case f.set["eps"] && !(f.eps > 0 && !math.IsInf(f.eps, 1)):
		return fmt.Errorf("-eps must be a positive finite radius, got %v", f.eps)
	case f.set["alpha"] && !(f.alpha >= 0 && !math.IsInf(f.alpha, 1)):
		return fmt.Errorf("-alpha must be finite and non-negative, got %v", f.alpha)
	case f.set["landmarks"] && f.landmarks < 1:
		return fmt.Errorf("-landmarks must be at least 1, got %d", f.landmarks)
	case f.set["tangent-dim"] && f.tangentDim < 1:
		return fmt.Errorf("-tangent-dim must be at least 1, got %d", f.tangentDim)
	case f.disconnected != "error" && f.disconnected != "connect" && f.disconnected != "largest":
		return fmt.Errorf("-disconnected %q: want error, connect or largest", f.disconnected)
	case f.supervised && f.labels == "":
		return errors.New("-supervised needs -labels")
	case m.needsLabels && f.labels == "":
		return fmt.Errorf("method %s needs -labels", m.name)
	}
	if err := checkOut(f.out); err != nil {
		return err
	}
	if f.plot != "" {
		if err := checkPNG(f.plot); err != nil {
			return err
		}
		if f.plotW, f.plotH, err = parseSize(f.plotSize); err != nil {
			return err
		}
	} else if f.set["plot-size"] {
		return errors.New("-plot-size needs -plot")
	}
	return nil
}

// readsList says which method-specific flags a method reads, for errors.
func readsList(m *method) string {
	if len(m.uses) == 0 {
		return " (it reads only -dim and -seed)"
	}
	return " (it reads -dim, -seed, -" + strings.Join(m.uses, ", -") + ")"
}

// checkPNG refuses a -plot name that does not end in .png.
func checkPNG(path string) error {
	if !strings.HasSuffix(strings.ToLower(path), ".png") {
		return fmt.Errorf("-plot %s: the picture is a PNG; name it FILE.png", path)
	}
	return nil
}

// parseSize parses "WxH" in pixels.
func parseSize(s string) (w, h int, err error) {
	if _, err := fmt.Sscanf(strings.ToLower(s), "%dx%d", &w, &h); err != nil || fmt.Sprintf("%dx%d", w, h) != strings.ToLower(s) {
		return 0, 0, fmt.Errorf("-plot-size %q: want WIDTHxHEIGHT in pixels, e.g. 800x600", s)
	}
	if w < 200 || h < 150 || w > 10000 || h > 10000 {
		return 0, 0, fmt.Errorf("-plot-size %q: want 200 ≤ width ≤ 10000 and 150 ≤ height ≤ 10000", s)
	}
	return w, h, nil
}

// run reads the input, fits and writes the outputs.
func (f *embedFlags) run(ctx context.Context, e env) error {
	m := f.resolved
	var (
		x      mat.Matrix
		rollT  []float64
		labels *dataio.Labels
		err    error
	)
	pprof.Do(ctx, pprof.Labels("stage", "read-input"), func(context.Context) {
		if f.in == "" {
			f.inputName = fmt.Sprintf("default data (%d-point swiss roll)", demoPoints)
			x, rollT = swissRoll(demoPoints, demoSeed)
		} else {
			f.inputName = f.in
			x, err = dataio.ReadMatrixFile(f.in)
		}
		if err == nil && f.labels != "" {
			labels, err = dataio.ReadLabelsFile(f.labels)
		}
	})
	if err != nil {
		return err
	}
	n, d := x.Dims()
	p := params{
		Dim: f.dim, K: f.k, Eps: f.eps, Alpha: f.alpha, Landmarks: f.landmarks, TangentDim: f.tangentDim, MaxIter: f.maxIter,
		Supervised: f.supervised, Seed: f.seed,
	}
	if f.set["disconnected"] {
		p.Disconnected = f.disconnected
	}
	if labels != nil {
		if len(labels.Class) != n {
			return fmt.Errorf("%s: %d labels for the %d samples of %s", f.labels, len(labels.Class), n, f.inputName)
		}
		p.Labels = labels.Class
	}
	bar := newProgress(e.stderr, e.terminal && !f.quiet)
	p.Options.Progress = bar.update
	p.Options.MaxBytes = int64(f.maxMemory)
	model, err := m.fit(ctx, p, x)
	bar.finish()
	if err == nil {
		err = ctx.Err() // interrupted during a stage that does not check: write nothing
	}
	if err != nil {
		if errors.Is(err, engine.ErrLabels) && f.labels != "" {
			return fmt.Errorf("%s: %w", f.labels, err)
		}
		return fmt.Errorf("%s: %w", f.inputName, err)
	}
	rep := model.Report()
	y := model.Embedding()
	kept := keptRows(model, y, n)

	pprof.Do(ctx, pprof.Labels("stage", "write-output"), func(context.Context) {
		err = writeOut(f.out, y, e)
		if err == nil && f.model != "" {
			err = saveModel(f.model, model)
		}
		if err == nil && f.report != "" {
			err = writeReport(f.report, rep, f.inputName, f.labels, n, d, dropped(kept, n))
		}
	})
	if err != nil || f.plot == "" {
		return err
	}
	if err := checkFinite(y); err != nil {
		return err
	}
	pprof.Do(ctx, pprof.Labels("stage", "plot"), func(context.Context) {
		pic := scatterPlot{
			Title: fmt.Sprintf("%s of %s", describe(rep), f.inputName),
			Y:     y,
		}
		switch {
		case labels != nil:
			pic.Class, pic.ClassNames, pic.ColourTitle = pick(labels.Class, kept), labels.Names, "label"
		case rollT != nil:
			pic.Value, pic.ColourTitle = pick(rollT, kept), "roll parameter t"
		}
		err = writePNG(f.plot, f.plotW, f.plotH, pic.draw)
	})
	return err
}

// keptRows returns, when the method left samples out of the embedding
// (-disconnected largest), the input row of every embedding row; nil when
// the embedding has every sample in order.
func keptRows(m engine.Model, y *mat.Dense, n int) []int {
	rows, _ := y.Dims()
	if k, ok := m.(interface{ Kept() []int }); ok {
		if kept := k.Kept(); len(kept) == rows && rows != n {
			return kept
		}
	}
	if rows != n { // cannot happen with the engine's models; colour nothing rather than wrongly
		return []int{}
	}
	return nil
}

// dropped lists the samples not in kept.
func dropped(kept []int, n int) []int {
	if len(kept) == 0 {
		return nil
	}
	in := make([]bool, n)
	for _, i := range kept {
		if i >= 0 && i < n {
			in[i] = true
		}
	}
	var d []int
	for i, ok := range in {
		if !ok {
			d = append(d, i)
		}
	}
	return d
}

// pick returns v[kept[0]], v[kept[1]], …; v itself when kept is nil, nil
// when kept is empty (rows that cannot be matched: no colours).
func pick[T any](v []T, kept []int) []T {
	if kept == nil {
		return v
	}
	if len(kept) == 0 {
		return nil
	}
	out := make([]T, len(kept))
	for k, i := range kept {
		out[k] = v[i]
	}
	return out
}

// describe names a method and its settings in effect: "isomap (dim=2, k=10)".
func describe(rep engine.Report) string {
	keys := make([]string, 0, len(rep.Params))
	for k := range rep.Params {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		// dim first, then alphabetical
		if (keys[i] == "dim") != (keys[j] == "dim") {
			return keys[i] == "dim"
		}
		return keys[i] < keys[j]
	})
	var parts []string
	for _, k := range keys {
		v := rep.Params[k]
		if s, ok := v.(string); ok && s == "" {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s=%v", k, v))
	}
	if len(parts) == 0 {
		return rep.Method
	}
	return rep.Method + " (" + strings.Join(parts, ", ") + ")"
}

// saveModel writes the model file; an incomplete file is removed.
func saveModel(path string, m engine.Model) error {
	return writeFile(path, func(w *os.File) error { return m.Save(w) })
}

// reportFile is the -report JSON: the engine's report (method, backend,
// n, features, dim, seconds, stages, peak_heap_bytes, params, …) plus the
// inputs it was made from.
type reportFile struct {
	engine.Report
	Input   string `json:"input"`
	Labels  string `json:"labels,omitempty"`
	Version string `json:"version"`
	// Dropped lists the input rows (0-based) left out of the embedding by
	// -disconnected largest.
	Dropped []int `json:"dropped,omitempty"`
}

func writeReport(path string, rep engine.Report, input, labels string, n, d int, dropped []int) error {
	r := reportFile{Report: rep, Input: input, Labels: labels, Version: engine.Version(), Dropped: dropped}
	if r.N == 0 {
		r.N, r.Features = n, d
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return writeFile(path, func(w *os.File) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// writeFile creates path and fills it with write; on error the file is
// removed and the error names path.
func writeFile(path string, write func(*os.File) error) error {
	fh, err := os.Create(path)
	if err != nil {
		return fileErr(path, err)
	}
	err = write(fh)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fileErr(path, err)
	}
	return nil
}

// fileErr names path once in front of err (an *os.PathError's own
// "open path" is dropped).
func fileErr(path string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// checkOut validates an -out value: a .csv or .npy file, "-" (standard
// output) or os.DevNull (no output).
func checkOut(out string) error {
	if out == "" || out == "-" || out == os.DevNull {
		return nil
	}
	if _, err := dataio.OutputFormat(out); err != nil {
		return fmt.Errorf("-out %s: %w", out, err)
	}
	return nil
}

// writeOut writes y as -out says: to the file, as CSV to standard output
// ("" or "-"), or nowhere (os.DevNull: the embedding is not formatted at
// all).
func writeOut(out string, y mat.Matrix, e env) error {
	switch out {
	case os.DevNull:
		return nil
	case "", "-":
		if err := dataio.WriteCSV(e.stdout, y); err != nil {
			return fmt.Errorf("standard output: %w", err)
		}
		return nil
	}
	return dataio.WriteMatrixFile(out, y)
}
