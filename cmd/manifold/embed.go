package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/sparse"
)

var embedHelp = wrap(`usage: manifold embed -method NAME [flags]

Fits a method to the rows of -in (the default 2000-point swiss roll without
it) and writes the embedding: to -out (.csv or .npy), or as CSV to standard
output. Methods: `+methodNames()+".", 78) + `

flags:
`

// embedFlags are the values of the embed flags.
type embedFlags struct {
	method, in, labels                 string
	supervised, quiet                  bool
	dim, k, landmarks, tangentDim      int
	landmarkK                          int
	landmarkChoice                     string
	maxIter, searchWidth, refine       int
	indexK                             int
	eps, alpha                         float64
	disconnected, weight, eigensolver  string
	neighbors, graph                   string
	float32                            bool
	neighborMode                       engine.NeighborSearch
	supervisedGeodesic                 string
	seed                               uint64
	out, model, plot, report, plotSize string
	cpuprofile, memprofile             string
	maxMemory                          byteSize
	plotW, plotH                       int
	set                                map[string]bool
	resolved                           *method
	inputName                          string
	budget                             int64 // bytes; 0: none
}

func cmdEmbed(ctx context.Context, args []string, e env) error {
	var f embedFlags
	fs := newFlagSet("embed", embedHelp, e)
	fs.StringVar(&f.method, "method", "", "the method: "+methodNames())
	fs.StringVar(&f.in, "in", "", "input `FILE`: .csv, .csv.gz, .npy, .mtx or .mtx.gz, rows = samples (default: the 2000-point swiss roll)")
	fs.StringVar(&f.labels, "labels", "", "class labels `FILE`, one per line (integers or strings): colours the plot, supervises -supervised and lda")
	fs.BoolVar(&f.supervised, "supervised", false, "neighbours only within the same class (needs -labels; -k 0: all of the class)")
	fs.IntVar(&f.dim, "dim", 0, "output dimension `D` (default 2; lda: classes − 1)")
	fs.IntVar(&f.k, "k", 0, "neighbours per point `K` (default: the method's)")
	fs.Float64Var(&f.eps, "eps", 0, "neighbourhood radius `E`, instead of -k")
	fs.Float64Var(&f.alpha, "alpha", 0, "regularization `A` of the method (default: the method's)")
	fs.IntVar(&f.landmarks, "landmarks", 0, "number of landmarks `L` (default: the method's)")
	fs.IntVar(&f.landmarkK, "landmark-k", 0, "landmark-lle: landmarks `K` each point is reconstructed from (default dim + 1, at most -landmarks)")
	fs.StringVar(&f.landmarkChoice, "landmark-choice", "", "how landmark-isomap and landmark-lle choose their landmarks: random, kmeans++, kmeans or maxmin (default: landmark-isomap maxmin, landmark-lle random)")
	fs.IntVar(&f.tangentDim, "tangent-dim", 0, "tangent-space dimension `T` of tdpm (default -dim)")
	fs.IntVar(&f.maxIter, "max-iter", 0, "bound `N` on the iterations of each regression of isoprojection (LSQR; default: the engine's, 2·features)")
	fs.StringVar(&f.disconnected, "disconnected", "error", "when the neighbour graph falls apart: error, connect or largest")
	fs.StringVar(&f.weight, "weight", "heat", "edge weights of laplacian and lpp: heat (the heat kernel, the default) or binary (1 on every edge, scikit-learn's SpectralEmbedding)")
	fs.StringVar(&f.eigensolver, "eigensolver", "auto", "the bottom eigensolver of lle, ltsa and laplacian: auto (dense up to 500 points, else shift-invert Lanczos with an inertia certificate), dense, lanczos, or uncertified (Lanczos on the matrix alone, no factor, no certificate: for the neighbour graphs of high-dimensional data, whose factor the certified path cannot afford), or, for lle and ltsa on dense rows, lobpcg (LOBPCG on M, ltsa's B, started from and preconditioned by 1000 locally linear landmarks: no factor, no certificate; converges on lle's M of high-dimensional data where uncertified does not); for isomap and isoprojection the top eigenpairs of τ(D_G): auto, dense or lanczos")
	fs.BoolVar(&f.float32, "float32", false, "isomap: geodesics in float32 (half the N×N matrix; the report says so). Without it, a fit that -max-memory refuses is retried in float32 (not with -eigensolver dense)")
	fs.StringVar(&f.neighbors, "neighbors", "auto", "neighbour search of the graph methods: auto (exact while affordable), exact or approx (NN-descent; the report gives its sampled recall)")
	fs.IntVar(&f.searchWidth, "search-width", 0, "with approximate neighbours: the search width `W` of the model's Transform queries (candidates kept; 0: max(2k, 30); larger: slower, closer to exact)")
	fs.IntVar(&f.indexK, "index-k", 0, searchingMethods()+" with approximate neighbours: widen the graph the model's Transform queries walk to the `K` nearest training rows of every row (one search a row after the fit; 0: the fit's lists; 15 reaches a given recall at a smaller -search-width, so Transform runs faster)")
	fs.IntVar(&f.refine, "refine", 0, "with approximate neighbours: refine NN-descent's lists by one search a row at width `W` (≥ k + 1; 0: none; higher recall, about twice the neighbour stage's time)")
	fs.StringVar(&f.graph, "graph", "", "a neighbour graph `FILE.mtx` (n×n, weights = distances, e.g. from manifold neighbors) in place of the search")
	fs.StringVar(&f.supervisedGeodesic, "supervised-geodesic", "constant", "isomap, isoprojection, oip, soip with -supervised: the geodesic between classes, constant (1000 × the largest within-class geodesic, the papers' code) or join (classes joined at their closest pairs)")
	fs.Uint64Var(&f.seed, "seed", 0, "random seed `S` (landmarks, initializations)")
	fs.StringVar(&f.out, "out", "", "write the embedding to `FILE` (.csv or .npy; - or default: CSV on standard output; /dev/null: not at all, when only -plot, -model or -report is wanted)")
	fs.StringVar(&f.model, "model", "", "save the fitted model to `FILE`, for manifold project")
	fs.StringVar(&f.plot, "plot", "", "draw the first two coordinates to `FILE.png`")
	fs.StringVar(&f.plotSize, "plot-size", "800x600", "size of the -plot picture in pixels, `WxH`")
	fs.StringVar(&f.report, "report", "", "write the stage report to `FILE.json`")
	fs.StringVar(&f.cpuprofile, "cpuprofile", "", "write a CPU profile to `FILE` (stages carry the pprof label stage)")
	fs.StringVar(&f.memprofile, "memprofile", "", "write a heap profile to `FILE` after the fit")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress bar")
	fs.Var(&f.maxMemory, "max-memory", "memory budget `SIZE` of the reading and the fit (500MB, 8GiB; 0: none; default: the memory the machine or its cgroup has available, less 15 %): a method that would need more stops before allocating, naming its estimate and cheaper settings")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	f.set = setFlags(fs)
	if err := f.check(); err != nil {
		return err
	}
	f.budget = budget(int64(f.maxMemory), f.set["max-memory"])

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
	for _, name := range methodFlags {
		if f.set[name] && !m.reads(name) {
			return fmt.Errorf("-%s does not apply to method %s%s", name, m.Name, readsList(m))
		}
	}
	if f.set["neighbors"] {
		if !m.reads("k") {
			return fmt.Errorf("-neighbors does not apply to method %s%s", m.Name, readsList(m))
		}
		mode, err := engine.ParseNeighbors(f.neighbors)
		if err != nil {
			return fmt.Errorf("-neighbors %q: want auto, exact or approx", f.neighbors)
		}
		f.neighborMode = mode
	}
	if f.set["refine"] {
		switch {
		case !m.reads("k"):
			return fmt.Errorf("-refine does not apply to method %s%s", m.Name, readsList(m))
		case f.refine < 0:
			return fmt.Errorf("-refine must be at least 0, got %d", f.refine)
		case f.set["k"] && f.refine != 0 && f.refine < f.k+1:
			return fmt.Errorf("-refine %d: the refining search keeps at least k + 1 = %d rows (0: none)", f.refine, f.k+1)
		case f.refine != 0 && f.neighborMode == engine.NeighborsExact:
			return errors.New("-refine refines approximate neighbours: not with -neighbors exact")
		}
	}
	if f.set["search-width"] {
		switch {
		case !m.reads("k"):
			return fmt.Errorf("-search-width does not apply to method %s%s", m.Name, readsList(m))
		case f.searchWidth < 0:
			return fmt.Errorf("-search-width must be at least 0, got %d", f.searchWidth)
		}
	}
	if f.set["index-k"] {
		switch {
		case !m.Searches():
			return fmt.Errorf("-index-k does not apply to method %s (it does to %s: the models whose Transform searches the training rows)", m.Name, searchingMethods())
		case f.indexK < 0:
			return fmt.Errorf("-index-k must be at least 0, got %d", f.indexK)
		case f.indexK != 0 && f.neighborMode == engine.NeighborsExact:
			return errors.New("-index-k widens the index of approximate neighbours: not with -neighbors exact")
		}
	}
	if f.graph != "" {
		switch {
		case !m.reads("k"):
			return fmt.Errorf("-graph does not apply to method %s%s", m.Name, readsList(m))
		case f.set["eps"] || f.supervised || f.set["neighbors"] || f.set["refine"]:
			return errors.New("-graph replaces the neighbour search: it excludes -eps, -supervised, -neighbors and -refine")
		case !strings.HasSuffix(strings.ToLower(f.graph), ".mtx") && !strings.HasSuffix(strings.ToLower(f.graph), ".mtx.gz"):
			return fmt.Errorf("-graph %s: the graph is a MatrixMarket file; name it FILE.mtx", f.graph)
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
	case f.set["landmark-k"] && f.landmarkK < 1:
		return fmt.Errorf("-landmark-k must be at least 1, got %d", f.landmarkK)
	case f.set["landmark-choice"] && !slices.Contains([]string{"random", "kmeans++", "kmeans", "maxmin"}, f.landmarkChoice):
		return fmt.Errorf("-landmark-choice %q: want random, kmeans++, kmeans or maxmin", f.landmarkChoice)
	case f.set["tangent-dim"] && f.tangentDim < 1:
		return fmt.Errorf("-tangent-dim must be at least 1, got %d", f.tangentDim)
	case f.disconnected != "error" && f.disconnected != "connect" && f.disconnected != "largest":
		return fmt.Errorf("-disconnected %q: want error, connect or largest", f.disconnected)
	case f.weight != "heat" && f.weight != "binary":
		return fmt.Errorf("-weight %q: want heat or binary", f.weight)
	case !slices.Contains([]string{"auto", "dense", "lanczos", "uncertified", "lobpcg"}, f.eigensolver):
		return fmt.Errorf("-eigensolver %q: want auto, dense, lanczos, uncertified or lobpcg", f.eigensolver)
	case f.supervised && f.labels == "":
		return errors.New("-supervised needs -labels")
	case f.supervisedGeodesic != "constant" && f.supervisedGeodesic != "join":
		return fmt.Errorf("-supervised-geodesic %q: want constant or join", f.supervisedGeodesic)
	case f.set["supervised-geodesic"] && !f.supervised:
		return errors.New("-supervised-geodesic needs -supervised")
	case m.NeedsLabels && f.labels == "":
		return fmt.Errorf("method %s needs -labels", m.Name)
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
		graph  *sparse.CSR
		err    error
	)
	pprof.Do(ctx, pprof.Labels("stage", "read-input"), func(context.Context) {
		if f.in == "" {
			f.inputName = fmt.Sprintf("default data (%d-point swiss roll)", demoPoints)
			x, rollT = swissRoll(demoPoints, demoSeed)
		} else {
			f.inputName = f.in
			x, err = dataio.ReadMatrixFileCtx(ctx, f.in, readLimits(f.budget))
		}
		if err == nil && f.labels != "" {
			labels, err = dataio.ReadLabelsFileCtx(ctx, f.labels, readLimits(f.budget))
		}
		if err == nil && f.graph != "" {
			graph, err = readGraph(ctx, f.graph, f.budget)
		}
	})
	if err != nil {
		return err
	}
	n, d := x.Dims()
	p := params{
		Dim: f.dim, K: f.k, Eps: f.eps, Alpha: f.alpha, Landmarks: f.landmarks, LandmarkK: f.landmarkK, LandmarkChoice: f.landmarkChoice,
		TangentDim: f.tangentDim, MaxIter: f.maxIter,
		Supervised: f.supervised, Seed: f.seed, Float32: f.float32,
	}
	if f.weight == "binary" {
		p.Weight = engine.WeightBinary
	}
	if f.eigensolver != "auto" {
		p.Eigensolver = engine.Eigensolver(f.eigensolver)
	}
	if f.set["disconnected"] {
		p.Disconnected = f.disconnected
	}
	if f.set["supervised-geodesic"] {
		p.SupervisedGeodesic = f.supervisedGeodesic
	}
	if labels != nil {
		if len(labels.Class) != n {
			return fmt.Errorf("%s: %d labels for the %d samples of %s", f.labels, len(labels.Class), n, f.inputName)
		}
		p.Labels = labels.Class
	}
	bar := newProgress(e.stderr, e.terminal && !f.quiet)
	p.Options.Progress = bar.update
	p.Options.MaxBytes = f.budget
	p.Options.Neighbors = engine.Neighbors{Search: f.neighborMode, Approx: neighbors.ApproxOptions{Seed: f.seed, Refine: f.refine}, Graph: graph, Width: f.searchWidth, IndexK: f.indexK}
	model, err := m.fit(ctx, p, x)
	switch {
	case !errors.Is(err, engine.ErrMemoryBudget) || !m.reads("float32") || f.set["float32"] || p.Float32:
		// not a budget refusal that float32 geodesics could answer
	case f.eigensolver == "dense":
		// The dense eigensolver reads float64 geodesics only: say so
		// beside the budget rather than retry in float32.
		err = fmt.Errorf("%w (not retried in float32: -eigensolver dense reads float64 geodesics only)", err)
	default:
		// auto: float32 geodesics halve the N×N matrix. A note on
		// standard error when that fits; one error line when it does not.
		p.Float32 = true
		model, err = m.fit(ctx, p, x)
		if err == nil {
			fmt.Fprintln(e.stderr, "manifold: float64 geodesics exceed -max-memory: fitted with -float32 (geodesics in float32, half the memory; the report says float32)")
		} else if errors.Is(err, engine.ErrMemoryBudget) {
			err = fmt.Errorf("%w (with -float32, tried because float64 geodesics did not fit either)", err)
		}
	}
	bar.finish()
	if err == nil {
		err = ctx.Err() // interrupted during a stage that does not check: write nothing
	}
	if err != nil {
		if errors.Is(err, engine.ErrLabels) && f.labels != "" {
			return fmt.Errorf("%s: %w", f.labels, err)
		}
		if graph != nil && errors.Is(err, engine.ErrBadSetting) {
			return fmt.Errorf("%s: %w", f.graph, err)
		}
		return inputErr(f.inputName, err, f.set["max-memory"])
	}
	rep := model.Report()
	y := model.Embedding()
	kept := keptRows(model, y, n)
	if err := checkOutput("the embedding", y); err != nil {
		return err
	}

	// Every file is written beside its destination and renamed only once
	// all are written (and standard output too): all or nothing.
	var outs outputs
	defer outs.abort()
	pprof.Do(ctx, pprof.Labels("stage", "write-output"), func(context.Context) {
		if toFile(f.out) {
			err = outs.write(f.out, func(p string) error { return dataio.WriteMatrixFile(p, y) })
		}
		if err == nil && f.model != "" {
			err = outs.write(f.model, func(p string) error { return saveModel(p, model) })
		}
		if err == nil && f.report != "" {
			err = outs.write(f.report, func(p string) error {
				return writeReport(p, rep, f.inputName, f.labels, n, d, dropped(kept, n))
			})
		}
	})
	if err == nil && f.plot != "" {
		err = f.drawPlot(ctx, &outs, rep, y, kept, labels, rollT)
	}
	if err == nil && (f.out == "" || f.out == "-") {
		if err = dataio.WriteCSV(e.stdout, y); err != nil {
			err = fmt.Errorf("standard output: %w", err)
		}
	}
	if err != nil {
		return err
	}
	return outs.commit()
}

// drawPlot writes the -plot picture through outs.
func (f *embedFlags) drawPlot(ctx context.Context, outs *outputs, rep engine.Report, y *mat.Dense, kept []int, labels *dataio.Labels, rollT []float64) error {
	if err := checkFinite(y); err != nil {
		return err
	}
	var err error
	pprof.Do(ctx, pprof.Labels("stage", "plot"), func(context.Context) {
		name := f.inputName
		if f.in != "" {
			name = filepath.Base(f.in)
		}
		pic := scatterPlot{
			Title: fmt.Sprintf("%s of %s", describe(rep), name),
			Y:     y,
		}
		switch {
		case labels != nil && numericLabels(labels.Names):
			vals := make([]float64, len(labels.Class))
			for i, c := range labels.Class {
				vals[i], _ = strconv.ParseFloat(labels.Names[c], 64)
			}
			pic.Value, pic.ColourTitle = pick(vals, kept), "label"
		case labels != nil:
			pic.Class, pic.ClassNames, pic.ColourTitle = pick(labels.Class, kept), labels.Names, "label"
		case rollT != nil:
			pic.Value, pic.ColourTitle = pick(rollT, kept), "roll parameter t"
		}
		err = outs.write(f.plot, func(p string) error { return writePNG(p, f.plotW, f.plotH, pic.draw) })
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

// numericLabels reports whether labels are values of a continuous
// quantity rather than classes: more than a dozen distinct labels, every
// one a finite number (digits 0–9 stay classes; a roll parameter or a
// regression target does not).
func numericLabels(names []string) bool {
	if len(names) <= 12 {
		return false
	}
	for _, n := range names {
		v, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// describe names a method and its settings in effect, numbers to four
// significant digits: "isomap (dim=2, k=10)", "lpp (dim=2, t=0.3183)".
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
		if x, ok := v.(float64); ok {
			parts = append(parts, fmt.Sprintf("%s=%.4g", k, x))
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

// toFile says whether -out names a file: "" and "-" mean CSV on standard
// output, os.DevNull no output at all (the embedding is not formatted).
func toFile(out string) bool {
	return out != "" && out != "-" && out != os.DevNull
}
