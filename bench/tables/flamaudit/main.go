// Command flamaudit sets every method's predicted flam per stage (the
// papers' operation counts, backend/flam, recorded in each fit's report)
// against the measured time at the machine's measured peak: the best Gemm
// rate of the active backend (bench.GemmRate, as bench/tables/kernels measures it)
// for compute-bound stages, and the stream bandwidth (bench.StreamBandwidth)
// for the memory-bound ones. For every stage it prints the achieved
// GFLAM/s, the percentage of the Gemm peak, and — assuming each flam reads
// one float64 from memory, as a matrix–vector product does — the bandwidth
// that would take and its percentage of the stream bandwidth.
//
// Each method's fit runs under the CPU profiler (one profile per method in
// -profiles), and for every stage that takes at least 20 % of its fit the
// command prints the top functions of that stage alone:
//
//	go tool pprof -top -tagfocus stage=NAME PROFILE
//
// It writes the section "flam-audit-<backend>" of bench/RESULTS.md. Run from
// the repository root, under the timing lock, for both backends:
//
//	flock /tmp/manifold-bench.lock go run ./bench/tables/flamaudit
//	flock /tmp/manifold-bench.lock go run -tags openblas ./bench/tables/flamaudit
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/bench"
	"github.com/manifoldlab/manifold/bench/internal/repro"
	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/enginetest"
	"github.com/manifoldlab/manifold/engine/metrics"
	"github.com/manifoldlab/manifold/sparse"
)

const prog = "flamaudit"

// job is one fit: a method of engine/enginetest (by name) with its
// settings, on one input.
type job struct {
	label, method, input string
	x                    mat.Matrix
	s                    enginetest.Settings
}

func main() {
	profiles := flag.String("profiles", "", "folder of the CPU profiles (default: a temporary folder)")
	only := flag.String("methods", "", "comma-separated methods to run (default: all)")
	results := flag.String("results", repro.ResultsPath, "the results file to update (\"\": none)")
	flag.Parse()
	if *profiles == "" {
		d, err := os.MkdirTemp("", "manifold-flamaudit-")
		if err != nil {
			repro.Fatal(prog, err)
		}
		*profiles = d
	}
	if err := os.MkdirAll(*profiles, 0o755); err != nil {
		repro.Fatal(prog, err)
	}
	impl := backend.Active()
	machine := repro.Machine()
	fmt.Fprintf(os.Stderr, "%s: measuring the peaks of %s…\n", prog, impl.Name())
	peak := max(bench.GemmRate(impl, 2000, 3), 1)
	if impl.Name() != "purego" {
		peak = max(peak, bench.GemmRate(impl, 4000, 2))
	}
	stream := bench.StreamBandwidth(10000)
	fmt.Fprintf(os.Stderr, "%s: Gemm peak %.1f GFLAM/s, stream %.1f GB/s\n", prog, peak/1e9, stream/1e9)

	// Inputs.
	roll5k, _ := datasets.SwissRoll(5000, 0.05, 1)
	roll2k, _ := datasets.SwissRoll(2000, 0.05, 1)
	roll20k, _ := datasets.SwissRoll(20000, 0.05, 1)
	usps, err := repro.LoadX("usps9298")
	if err != nil {
		repro.Fatal(prog, err)
	}
	uspsY, err := repro.LoadY("usps9298")
	if err != nil {
		repro.Fatal(prog, err)
	}
	sp, _ := metrics.RatioSplits(9298, 0.5, 1, 1)
	half := metrics.Rows(usps, sp[0].Train).(*mat.Dense)
	halfY := metrics.Labels(uspsY, sp[0].Train)
	orl, err := repro.LoadX("orl32")
	if err != nil {
		repro.Fatal(prog, err)
	}
	faces4096, err := datasets.UpsampledFaces(orl)
	if err != nil {
		repro.Fatal(prog, err)
	}
	reuters, _, err := repro.LoadReuters()
	if err != nil {
		repro.Fatal(prog, err)
	}
	reuters = reuters.NormalizeRows(sparse.L2)

	connect := engine.DisconnectedConnect
	landmarks := func(n int) func(any) {
		return func(p any) {
			switch s := p.(type) {
			case *engine.LandmarkIsomap:
				s.Landmarks = n
			case *engine.LowRankIsomap:
				s.Landmarks = n
			}
		}
	}
	jobs := []job{
		{"pca", "pca", "usps9298 9298×256, dim 10", usps, enginetest.Settings{Dim: 10}},
		{"mds", "mds", "swiss roll 5000, dim 2", roll5k, enginetest.Settings{Dim: 2}},
		{"isomap", "isomap", "swiss roll 5000, k 10", roll5k, enginetest.Settings{Dim: 2, K: 10}},
		{"landmark-isomap", "landmark-isomap", "swiss roll 20000, k 10, 300 landmarks", roll20k, enginetest.Settings{Dim: 2, K: 10, Tune: landmarks(300)}},
		{"lle", "lle", "swiss roll 5000, k 10", roll5k, enginetest.Settings{Dim: 2, K: 10}},
		{"ltsa", "ltsa", "swiss roll 5000, k 10", roll5k, enginetest.Settings{Dim: 2, K: 10}},
		{"laplacian", "laplacian", "swiss roll 5000, k 10", roll5k, enginetest.Settings{Dim: 2, K: 10}},
		{"tdpm", "tdpm", "swiss roll 2000, k 12", roll2k, enginetest.Settings{Dim: 2, K: 12}},
		{"isoprojection", "isoprojection", "usps 4649×256 (50 %), k 10, dim 10", half, enginetest.Settings{Dim: 10, K: 10, Disconnected: connect}},
		{"isoprojection-direct", "isoprojection-direct", "usps 4649×256 (50 %), k 10, dim 10", half, enginetest.Settings{Dim: 10, K: 10, Disconnected: connect}},
		{"isoprojection-sparse", "isoprojection", "reuters 8293×18933 sparse, k 5, dim 10", reuters, enginetest.Settings{Dim: 10, K: 5, Disconnected: connect}},
		{"oip", "oip", "usps 4649×256 (50 %), k 10, dim 40", half, enginetest.Settings{Dim: 40, K: 10, Disconnected: connect}},
		{"soip", "soip", "usps 4649×256 (50 %), k 10, dim 40, cardinality 64", half, enginetest.Settings{Dim: 40, K: 10, Disconnected: connect}},
		{"soip-faces", "soip", "orl32 400×1024, k 8, dim 60, cardinality 256", orl, enginetest.Settings{Dim: 60, K: 8, Disconnected: connect}},
		{"oip-faces", "oip", "orl32 400×1024, k 8, dim 60", orl, enginetest.Settings{Dim: 60, K: 8, Disconnected: connect}},
		{"soip-faces4096", "soip", "orl32 ×2 upsampled 200×4096, k 8, dim 60, cardinality 1024", faces4096, enginetest.Settings{Dim: 60, K: 8}},
		{"oip-faces4096", "oip", "orl32 ×2 upsampled 200×4096, k 8, dim 60", faces4096, enginetest.Settings{Dim: 60, K: 8}},
		{"lpp", "lpp", "usps 4649×256 (50 %), k 10, dim 10", half, enginetest.Settings{Dim: 10, K: 10}},
		{"npe", "npe", "usps 4649×256 (50 %), k 10, dim 10", half, enginetest.Settings{Dim: 10, K: 10}},
		{"lda", "lda", "usps 4649×256 (50 %), 10 classes", half, enginetest.Settings{Labels: halfY}},
		{"lsi", "lsi", "reuters 8293×18933 sparse, dim 10", reuters, enginetest.Settings{Dim: 10}},
		{"lowrank-isomap", "lowrank-isomap", "orl32 400×1024, 20 clusters, dim 10", orl, enginetest.Settings{Dim: 10, Tune: landmarks(20)}},
	}
	want := map[string]bool{}
	for _, m := range strings.Split(*only, ",") {
		if m != "" {
			want[m] = true
		}
	}

	var tab repro.Table
	tab.Header = []string{"method (input)", "stage", "share of fit", "predicted flam", "seconds", "GFLAM/s", "% Gemm peak", "GB/s at 8 B/flam", "% stream", "detail"}
	var evidence strings.Builder
	ctx := context.Background()
	for _, j := range jobs {
		if len(want) > 0 && !want[j.label] {
			continue
		}
		method, ok := enginetest.Lookup(j.method)
		if !ok {
			repro.Fatal(prog, fmt.Errorf("no method %q", j.method))
		}
		path := filepath.Join(*profiles, j.label+"-"+impl.Name()+".pprof")
		f, err := os.Create(path)
		if err != nil {
			repro.Fatal(prog, err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			repro.Fatal(prog, err)
		}
		t0 := time.Now()
		m, err := method.Fit(ctx, j.x, j.s)
		wall := time.Since(t0).Seconds()
		pprof.StopCPUProfile()
		f.Close()
		if err != nil {
			repro.Fatal(prog, fmt.Errorf("%s: %w", j.label, err))
		}
		rep := m.Report()
		fmt.Fprintf(os.Stderr, "%s: %s %.2f s\n", prog, j.label, wall)
		first := true
		for _, s := range rep.Stages {
			share := s.Seconds / rep.Seconds
			name := ""
			if first {
				name = fmt.Sprintf("**%s** (%s; %.2f s)", j.label, j.input, rep.Seconds)
				first = false
			}
			rate := 0.0
			if s.Seconds > 0 {
				rate = s.FlamPredicted / s.Seconds
			}
			tab.Add(name, s.Name, fmt.Sprintf("%.0f %%", 100*share), fmt.Sprintf("%.3g", s.FlamPredicted), fmt.Sprintf("%.4f", s.Seconds),
				fmt.Sprintf("%.2f", rate/1e9), fmt.Sprintf("%.0f", 100*rate/peak), fmt.Sprintf("%.1f", 8*rate/1e9),
				fmt.Sprintf("%.0f", 100*8*rate/stream), strings.ReplaceAll(s.Detail, "|", "/"))
			if share >= 0.2 && s.Seconds >= 0.05 {
				top := pprofTop(path, s.Name)
				fmt.Fprintf(&evidence, "`go tool pprof -top -tagfocus stage=%s %s` (%s, %.2f s, %.0f %% of the fit):\n\n```\n%s```\n\n",
					s.Name, filepath.Base(path), j.label, s.Seconds, 100*share, top)
			}
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "## Flam audit, %s backend\n\n", impl.Name())
	fmt.Fprintf(&b, "Command: `flock /tmp/manifold-bench.lock go run %s./bench/tables/flamaudit %s`.  \n", tagFlag(impl.Name()), strings.Join(os.Args[1:], " "))
	fmt.Fprintf(&b, "Machine: %s.  \n", machine)
	fmt.Fprintf(&b, "Measured peaks in this run: Gemm %.2f GFLAM/s (bench.GemmRate, best n×n×n Gemm of the backend), stream %.1f GB/s (bench.StreamBandwidth, parallel copy, read + write).\n\n",
		peak/1e9, stream/1e9)
	b.WriteString("Per stage: the flam the papers' formulas predict (backend/flam, in each fit's report), the measured seconds, the achieved rate and its share of the Gemm peak; " +
		"for stages that stream a matrix once per flam (matrix–vector products, Lanczos with block size 1, LSQR, Dijkstra, double centring) " +
		"the bandwidth 8 bytes/flam would need, against the stream bandwidth. A stage above 100 % did less work than its prediction (the prediction is an upper bound, " +
		"e.g. brute-force kNN counted while a k-d tree or sparse products ran).\n\n")
	b.WriteString(tab.Markdown())
	b.WriteString("\nProfiles of the stages that take at least 20 % of their fit (flat = time in the function itself):\n\n")
	b.WriteString(evidence.String())
	if *results != "" {
		if err := repro.UpdateSection(*results, "flam-audit-"+impl.Name(), b.String()); err != nil {
			repro.Fatal(prog, err)
		}
	}
	fmt.Print(b.String())
	fmt.Fprintf(os.Stderr, "%s: profiles in %s\n", prog, *profiles)
}

func tagFlag(name string) string {
	if name == "openblas" {
		return "-tags openblas "
	}
	return ""
}

// pprofTop returns the first lines of `go tool pprof -top` for one stage.
func pprofTop(profile, stage string) string {
	out, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount=8", "-tagfocus", "stage="+stage, profile).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("(pprof failed: %v)\n", err)
	}
	lines := strings.Split(string(out), "\n")
	var keep []string
	started := false
	for _, l := range lines {
		if strings.Contains(l, "flat%") {
			started = true
		}
		if started || strings.HasPrefix(l, "Showing") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
