package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/lanczos"
)

// Options are the settings every method shares; each method's settings
// struct embeds them. The zero value means: no progress callback, no memory
// budget.
type Options struct {
	// Progress, when set, is called at the start of every stage and at
	// chunk or iteration boundaries inside long stages, on the goroutine
	// running Fit. It must return quickly; it may cancel the context Fit
	// was given.
	Progress func(Progress)
	// MaxBytes, when positive, is the memory budget of Fit: a method
	// estimates its peak before allocating and returns an error wrapping
	// ErrMemoryBudget, naming the estimate and cheaper alternatives,
	// instead of being killed by the operating system.
	MaxBytes int64
	// Neighbors chooses the neighbour search of the graph methods: exact,
	// approximate (NN-descent), or by the cost model (the default).
	Neighbors Neighbors
}

// Progress is what the progress callback receives.
type Progress struct {
	Method string // e.g. "isomap"
	Stage  string // e.g. "geodesics"
	Done   int64  // units of work done in this stage (an iterative eigensolve: its iterations)
	Total  int64  // total units, 0 when the stage cannot know
}

// Stage is one stage of a fit in its Report.
type Stage struct {
	Name           string  `json:"name"`
	Seconds        float64 `json:"seconds"`
	FlamPredicted  float64 `json:"flam_predicted"`
	Iterations     int     `json:"iterations"`
	BytesAllocated uint64  `json:"bytes_allocated"`
	Detail         string  `json:"detail,omitempty"` // the path taken, e.g. "lanczos" or "dense syevr"
	// Search is the neighbour search of a neighbour stage ("exact
	// kd-tree", "exact brute", "nn-descent"); Recall, for an approximate
	// one, its recall@k measured on a sample of points (neighbors.SampledRecall).
	Search string                    `json:"search,omitempty"`
	Recall *neighbors.RecallEstimate `json:"recall,omitempty"`
}

// GFLAMs is the stage's achieved rate, predicted flam per second / 10⁹.
func (s Stage) GFLAMs() float64 {
	if s.Seconds <= 0 {
		return 0
	}
	return s.FlamPredicted / s.Seconds / 1e9
}

// Report is what a fit measured: one entry per stage with the flam the
// papers' formulas predict, measured seconds, iterations and bytes
// allocated, plus the peak heap seen during the fit.
type Report struct {
	Method        string              `json:"method"`
	Backend       string              `json:"backend"`
	BackendInfo   backend.Description `json:"backend_info"`
	N             int                 `json:"n"`
	Features      int                 `json:"features"`
	Dim           int                 `json:"dim"`
	Seconds       float64             `json:"seconds"`
	Stages        []Stage             `json:"stages"`
	PeakHeapBytes uint64              `json:"peak_heap_bytes"` // peak of live+unswept heap objects during the fit
	BaseHeapBytes uint64              `json:"base_heap_bytes"` // the same at the start of the fit
	// EstimatedBytes is the method's estimate of the memory its fit
	// allocates at its peak, the figure Options.MaxBytes is checked
	// against (see "Memory budgets" in doc.go for how it compares with
	// PeakHeapBytes − BaseHeapBytes).
	EstimatedBytes int64          `json:"estimated_bytes,omitempty"`
	Params         map[string]any `json:"params,omitempty"` // the settings in effect, defaults resolved
}

// Stage returns the named stage and whether it exists.
func (r *Report) Stage(name string) (Stage, bool) {
	for _, s := range r.Stages {
		if s.Name == name {
			return s, true
		}
	}
	return Stage{}, false
}

// Table renders the stages as a text table: stage, predicted flam, seconds,
// GFLAM/s, iterations and the path taken.
func (r Report) Table() string {
	s := fmt.Sprintf("%-14s %12s %10s %9s %6s  %s\n", "stage", "flam", "seconds", "GFLAM/s", "iters", "detail")
	for _, st := range r.Stages {
		s += fmt.Sprintf("%-14s %12.3g %10.4f %9.2f %6d  %s\n", st.Name, st.FlamPredicted, st.Seconds, st.GFLAMs(), st.Iterations, st.Detail)
	}
	s += fmt.Sprintf("%-14s %12s %10.4f   peak heap %.1f MiB, backend %s\n", "total", "", r.Seconds, float64(r.PeakHeapBytes)/(1<<20), r.Backend)
	return s
}

// run carries one Fit: its context, options, report under construction and
// the heap sampler.
type run struct {
	ctx    context.Context
	method string
	opts   Options
	rep    *Report
	start  time.Time

	stop     chan struct{}
	once     sync.Once
	wg       sync.WaitGroup
	peakMu   sync.Mutex
	peakHeap uint64
}

const heapMetric = "/memory/classes/heap/objects:bytes"
const allocMetric = "/gc/heap/allocs:bytes"

func readMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 {
		return s[0].Value.Uint64()
	}
	return 0
}

// startRun begins a fit: it checks the context and starts the heap sampler
// (one goroutine, stopped by finish).
func startRun(ctx context.Context, method string, opts Options, n, features, dim int, params map[string]any) (*run, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("engine: %s: %w", method, err)
	}
	info := backend.Info()
	r := &run{
		ctx: ctx, method: method, opts: opts, start: time.Now(),
		rep:  &Report{Method: method, Backend: info.Backend, BackendInfo: info, N: n, Features: features, Dim: dim, Params: params},
		stop: make(chan struct{}),
	}
	r.rep.BaseHeapBytes = readMetric(heapMetric)
	r.peakHeap = r.rep.BaseHeapBytes
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-r.stop:
				return
			case <-t.C:
				r.samplePeak()
			}
		}
	}()
	return r, nil
}

func (r *run) samplePeak() {
	h := readMetric(heapMetric)
	r.peakMu.Lock()
	r.peakHeap = max(r.peakHeap, h)
	r.peakMu.Unlock()
}

// finish stops the sampler and completes the report. Fit defers it (so the
// sampler stops on every path) and calls it once more for the report; the
// second call returns the same report.
func (r *run) finish() *Report {
	r.once.Do(func() {
		r.samplePeak()
		close(r.stop)
		r.wg.Wait()
		r.rep.PeakHeapBytes = r.peakHeap
		r.rep.Seconds = time.Since(r.start).Seconds()
	})
	return r.rep
}

// done finishes a fit that went through all its stages: it returns the
// report, or, when ctx was cancelled meanwhile (during a last stage that
// does not check it), an error wrapping the context's error, so a Fit
// whose context was cancelled before it returned never returns a model.
func (r *run) done() (*Report, error) {
	rep := r.finish()
	if err := r.ctx.Err(); err != nil {
		return nil, fmt.Errorf("engine: %s: cancelled at the end of the fit: %w", r.method, err)
	}
	return rep, nil
}

// stageCtx is handed to a stage's body.
type stageCtx struct {
	r          *run
	name       string
	iterations int
	detail     string
	search     string
	recall     *neighbors.RecallEstimate
	predicted  float64
	lastReport time.Time
}

// progress reports done of total units (rate-limited to one call per 20 ms,
// except the first and the last).
func (s *stageCtx) progress(done, total int64) {
	if s.r.opts.Progress == nil {
		return
	}
	now := time.Now()
	if done != 0 && done != total && now.Sub(s.lastReport) < 20*time.Millisecond {
		return
	}
	s.lastReport = now
	s.r.opts.Progress(Progress{Method: s.r.method, Stage: s.name, Done: done, Total: total})
}

// watch runs work on a new goroutine while this one (the goroutine
// running Fit, where the Progress callback is called) reports the counter
// done against total every 50 ms; it returns work's error. It serves the
// stages whose work runs inside a parallel kernel that counts what it
// finished (sources of the shortest paths).
func (s *stageCtx) watch(done *atomic.Int64, total int64, work func() error) error {
	if s.r.opts.Progress == nil {
		return work()
	}
	errc := make(chan error, 1)
	go func() { errc <- work() }()
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case err := <-errc:
			if err == nil {
				s.progress(total, total)
			}
			return err
		case <-t.C:
			s.progress(min(done.Load(), total), total)
		}
	}
}

// watchCount is watch with a counter of its own, handed to work (a
// solver's Progress setting).
func (s *stageCtx) watchCount(total int64, work func(done *atomic.Int64) error) error {
	var done atomic.Int64
	return s.watch(&done, total, func() error { return work(&done) })
}

// lanczos runs lanczos.Solve of op with set under the stage's progress
// watch (lanczosBudget(set.K) products, counted by the solver's Progress),
// a failure wrapped as numerical, and keeps the solver's iterations.
func (s *stageCtx) lanczos(ctx context.Context, op lanczos.Operator, set lanczos.Settings) (*lanczos.Result, error) {
	var res *lanczos.Result
	err := s.watchCount(lanczosBudget(set.K), func(done *atomic.Int64) error {
		set.Progress = done
		var err error
		res, err = lanczos.Solve(ctx, op, set)
		return err
	})
	if err != nil {
		return nil, wrapNumerical(err)
	}
	s.iterations = res.Stats.Iterations
	return res, nil
}

// lanczosBudget is the products a Lanczos stage reports progress against:
// the 20 per eigenvector of the flam prediction (flam.Lanczos), which a hard
// problem may pass (the bar then waits at its end).
func lanczosBudget(k int) int64 { return 20 * int64(max(k, 1)) }

// stage runs body as the named stage: under the pprof label stage=name,
// timed, with the bytes it allocated, and with ctx checked before it
// starts. predicted is the stage's flam from the papers' formulas; the body
// may refine it (s.predicted) once it knows iteration counts.
func (r *run) stage(name string, predicted float64, body func(ctx context.Context, s *stageCtx) error) error {
	if err := r.ctx.Err(); err != nil {
		return fmt.Errorf("engine: %s: before stage %s: %w", r.method, name, err)
	}
	s := &stageCtx{r: r, name: name, predicted: predicted}
	s.progress(0, 0)
	alloc0 := readMetric(allocMetric)
	t0 := time.Now()
	var err error
	pprof.Do(r.ctx, pprof.Labels("method", r.method, "stage", name), func(ctx context.Context) {
		err = body(ctx, s)
	})
	r.samplePeak()
	r.rep.Stages = append(r.rep.Stages, Stage{
		Name: name, Seconds: time.Since(t0).Seconds(), FlamPredicted: s.predicted,
		Iterations: s.iterations, BytesAllocated: readMetric(allocMetric) - alloc0, Detail: s.detail,
		Search: s.search, Recall: s.recall,
	})
	if err != nil {
		if cerr := r.ctx.Err(); cerr != nil && !isCtxErr(err) {
			return fmt.Errorf("engine: %s: stage %s: %w (%v)", r.method, name, cerr, err)
		}
		return fmt.Errorf("engine: %s: stage %s: %w", r.method, name, err)
	}
	return nil
}

func isCtxErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// checkBudget returns an error wrapping ErrMemoryBudget when the estimate
// exceeds the budget; alternatives names cheaper settings.
func (r *run) checkBudget(estimate int64, what, alternatives string) error {
	if estimate < 0 { // the estimate overflowed
		estimate = math.MaxInt64
	}
	r.rep.EstimatedBytes = max(r.rep.EstimatedBytes, estimate)
	if estimate > maxAddressable {
		// No machine has this much: refuse even without a budget, rather
		// than let the allocation end the process.
		return fmt.Errorf("engine: %s: %w: %s needs about %s, more than any machine addresses; cheaper: %s",
			r.method, ErrMemoryBudget, what, fmtBytes(estimate), alternatives)
	}
	if r.opts.MaxBytes <= 0 || estimate <= r.opts.MaxBytes {
		return nil
	}
	msg := fmt.Sprintf("%s needs about %s, budget %s", what, fmtBytes(estimate), fmtBytes(r.opts.MaxBytes))
	if alternatives != "" {
		msg += "; cheaper: " + alternatives
	}
	return fmt.Errorf("engine: %s: %w: %s", r.method, ErrMemoryBudget, msg)
}

// maxAddressable is 2⁵⁰ bytes (1 PiB): an estimate above it is refused
// whatever the budget.
const maxAddressable = 1 << 50

func fmtBytes(b int64) string {
	switch {
	case b >= 1<<40:
		return fmt.Sprintf("%.3g TiB", float64(b)/(1<<40))
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	default:
		return fmt.Sprintf("%d B", b)
	}
}

// firstError keeps the first error reported by parallel workers.
type firstError struct {
	mu  sync.Mutex
	err error
}

func (f *firstError) set(err error) {
	f.mu.Lock()
	if f.err == nil {
		f.err = err
	}
	f.mu.Unlock()
}

func (f *firstError) get() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}
