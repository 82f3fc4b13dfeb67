package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/engine"
)

const serveHelp = `usage: manifold serve -model [NAME=]FILE [-model [NAME=]FILE ...] [-addr 127.0.0.1:8080]

Serves the out-of-sample mapping (Transform) of models saved by
manifold embed -model over HTTP, on a loopback address only (put a proxy
in front to expose it). A model's name is given before '=', or is its
file's base name without extension.

  POST /v1/models/{name}/transform  body {"rows": [[...], ...]} (application/json)
                                    or an NPY matrix (application/x-npy);
                                    answers {"embedding": [[...], ...]} or NPY alike
  GET  /v1/models                   the models: name, method, dim, features, file
  GET  /v1/models/{name}            one model and its fit report
  GET  /healthz, /readyz            liveness; readiness (503 while shutting down)
  GET  /metrics                     Prometheus text: requests, latency histogram,
                                    rows, errors by kind, in flight, reloads

At most -max-inflight requests are mapped at once and -queue more wait;
beyond that a request gets 503 at once (never an unbounded queue). SIGTERM
or an interrupt stops accepting connections and finishes the requests in
flight; SIGHUP reloads every model file, and a changed file (modification
time or size, checked every -reload-interval) is reloaded too: requests
in flight finish on the old model, later ones use the new one.

flags:
`

// serveConfig holds the limits of a server.
type serveConfig struct {
	addr           string
	maxInflight    int
	queue          int
	maxBody        int64
	maxRows        int
	timeout        time.Duration
	reloadInterval time.Duration
	shutdownGrace  time.Duration
}

// modelFlag collects repeated -model [NAME=]FILE values.
type modelFlag []modelSpec

type modelSpec struct{ name, path string }

func (f *modelFlag) String() string { return "" }

func (f *modelFlag) Set(v string) error {
	name, path, ok := strings.Cut(v, "=")
	if !ok {
		path = v
		base := filepath.Base(path)
		name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	if path == "" {
		return errors.New("empty file name")
	}
	if !validModelName(name) {
		return fmt.Errorf("model name %q: use letters, digits, '-', '_' and '.'", name)
	}
	for _, s := range *f {
		if s.name == name {
			return fmt.Errorf("model name %q given twice", name)
		}
	}
	*f = append(*f, modelSpec{name, path})
	return nil
}

func validModelName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, r := range s {
		if !(r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

func cmdServe(ctx context.Context, args []string, e env) error {
	var models modelFlag
	cfg := serveConfig{}
	fs := newFlagSet("serve", serveHelp, e)
	fs.Var(&models, "model", "a model `[NAME=]FILE` written by manifold embed -model (repeat for several)")
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:8080", "listen on this loopback `HOST:PORT` (127.0.0.0/8, ::1 or localhost)")
	fs.IntVar(&cfg.maxInflight, "max-inflight", 0, "requests mapped at once (default: 2 × GOMAXPROCS)")
	fs.IntVar(&cfg.queue, "queue", 64, "requests that may wait for a slot; more get 503")
	fs.Int64Var(&cfg.maxBody, "max-body", 16<<20, "largest request body in `bytes` (413 beyond)")
	fs.IntVar(&cfg.maxRows, "max-rows", 100000, "most rows in one request")
	fs.DurationVar(&cfg.timeout, "timeout", 30*time.Second, "time limit of one request, waiting included")
	fs.DurationVar(&cfg.reloadInterval, "reload-interval", 2*time.Second, "how often model files are checked for changes (0: only on SIGHUP)")
	fs.DurationVar(&cfg.shutdownGrace, "shutdown-grace", 30*time.Second, "how long shutdown waits for requests in flight")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if len(models) == 0 {
		return errors.New("-model is required (a file written by manifold embed -model; NAME=FILE to name it)")
	}
	if err := checkLoopback(cfg.addr); err != nil {
		return err
	}
	s, err := newServer(ctx, cfg, models, e.stderr)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("-addr %s: %w", cfg.addr, err)
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		for range hup {
			s.reloadAll(true)
		}
	}()
	fmt.Fprintf(e.stderr, "manifold serve: listening on http://%s (%d model(s))\n", ln.Addr(), len(models))
	err = s.serve(ctx, ln)
	fmt.Fprintln(e.stderr, "manifold serve: stopped")
	return err
}

// checkLoopback refuses any listen address but a loopback one.
func checkLoopback(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-addr %q: %v", addr, err)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("-addr %q: port %q is not a number in [0, 65535]", addr, port)
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-addr %q: only loopback addresses (127.0.0.1, ::1, localhost) are served; put a proxy in front to expose the service", addr)
	}
	return nil
}

// served is one loaded model; it is replaced whole on reload, so a request
// keeps the one it started with.
type served struct {
	name, path string
	model      engine.Model
	features   int
	modTime    time.Time
	size       int64
	loaded     time.Time
}

type slot struct {
	name string
	path string
	cur  atomic.Pointer[served]
}

type server struct {
	cfg     serveConfig
	log     io.Writer
	slots   map[string]*slot
	names   []string
	admit   chan struct{} // capacity maxInflight + queue: admitted requests
	work    chan struct{} // capacity maxInflight: requests being mapped
	met     *metrics
	closing atomic.Bool
	reloadM sync.Mutex
	// hook, if set (tests), runs inside a work slot before mapping.
	hook func()
}

func newServer(ctx context.Context, cfg serveConfig, specs []modelSpec, log io.Writer) (*server, error) {
	if cfg.maxInflight <= 0 {
		cfg.maxInflight = 2 * max(1, runtimeProcs())
	}
	cfg.queue = max(0, cfg.queue)
	if cfg.maxBody <= 0 {
		cfg.maxBody = 16 << 20
	}
	if cfg.maxRows <= 0 {
		cfg.maxRows = 100000
	}
	if cfg.timeout <= 0 {
		cfg.timeout = 30 * time.Second
	}
	if cfg.shutdownGrace <= 0 {
		cfg.shutdownGrace = 30 * time.Second
	}
	s := &server{cfg: cfg, log: log, slots: map[string]*slot{},
		admit: make(chan struct{}, cfg.maxInflight+cfg.queue), work: make(chan struct{}, cfg.maxInflight), met: newMetrics()}
	for _, sp := range specs {
		m, err := loadServed(ctx, sp.name, sp.path)
		if err != nil {
			return nil, err
		}
		sl := &slot{name: sp.name, path: sp.path}
		sl.cur.Store(m)
		s.slots[sp.name] = sl
		s.names = append(s.names, sp.name)
	}
	sort.Strings(s.names)
	return s, nil
}

// loadServed reads a model file and prepares its request path under ctx
// (an interrupted start stops within about 100 ms).
func loadServed(ctx context.Context, name, path string) (*served, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileErr(path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fileErr(path, err)
	}
	m, err := engine.Load(f)
	if err != nil {
		return nil, fmt.Errorf("model %s: %s: %w", name, path, err)
	}
	if err := engine.PrepareCtx(ctx, m); err != nil {
		return nil, fmt.Errorf("model %s: %s: %w", name, path, err)
	}
	return &served{name: name, path: path, model: m, features: modelFeatures(m), modTime: fi.ModTime(), size: fi.Size(), loaded: time.Now()}, nil
}

// modelFeatures returns the number of input features a model expects, from
// its report (0 when unknown).
func modelFeatures(m engine.Model) int { return m.Report().Features }

// reloadAll reloads the model files that changed (all of them when force).
// A file that fails to load leaves the model in service as it was.
func (s *server) reloadAll(force bool) {
	s.reloadM.Lock()
	defer s.reloadM.Unlock()
	for _, name := range s.names {
		sl := s.slots[name]
		cur := sl.cur.Load()
		fi, err := os.Stat(sl.path)
		if err != nil {
			if force {
				s.met.reloadErr(name)
				fmt.Fprintf(s.log, "manifold serve: reload %s: %v (keeping the loaded model)\n", name, oneLine(err.Error()))
			}
			continue
		}
		if !force && fi.ModTime().Equal(cur.modTime) && fi.Size() == cur.size {
			continue
		}
		m, err := loadServed(context.Background(), name, sl.path)
		if err != nil {
			s.met.reloadErr(name)
			fmt.Fprintf(s.log, "manifold serve: reload %s: %v (keeping the loaded model)\n", name, oneLine(err.Error()))
			if !force {
				// Do not retry the same broken file every interval.
				c := *cur
				c.modTime, c.size = fi.ModTime(), fi.Size()
				sl.cur.Store(&c)
			}
			continue
		}
		sl.cur.Store(m)
		s.met.reloaded(name)
		fmt.Fprintf(s.log, "manifold serve: reloaded %s from %s (%s, dim %d)\n", name, sl.path, m.model.Method(), m.model.Dim())
	}
}

func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/models/{name}/transform", s.transform)
	mux.HandleFunc("GET /v1/models", s.listModels)
	mux.HandleFunc("GET /v1/models/{name}", s.getModel)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if s.closing.Load() {
			http.Error(w, "shutting down", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ready\n")
	})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		s.met.write(w, len(s.admit), len(s.work))
	})
	return mux
}

// serve runs the server on ln until ctx is done, then shuts down
// gracefully: no new connections, requests in flight finished (up to
// shutdownGrace).
func (s *server) serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       s.cfg.timeout + 10*time.Second,
		WriteTimeout:      s.cfg.timeout + 10*time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	done := make(chan struct{})
	if s.cfg.reloadInterval > 0 {
		go func() {
			t := time.NewTicker(s.cfg.reloadInterval)
			defer t.Stop()
			for {
				select {
				case <-done:
					return
				case <-t.C:
					s.reloadAll(false)
				}
			}
		}()
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
		s.closing.Store(true)
		sctx, cancel := context.WithTimeout(context.Background(), s.cfg.shutdownGrace)
		err = hs.Shutdown(sctx)
		cancel()
		if e := <-errc; !errors.Is(e, http.ErrServerClosed) && err == nil {
			err = e
		}
	}
	close(done)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// apiError is the body of every error answer.
type apiError struct {
	Error string `json:"error"`
	Kind  string `json:"kind"`
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func (s *server) fail(w http.ResponseWriter, model string, code int, kind, msg string) {
	s.met.error(kind)
	if code == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, code, apiError{Error: msg, Kind: kind})
}

type modelInfo struct {
	Name     string         `json:"name"`
	Method   string         `json:"method"`
	Dim      int            `json:"dim"`
	Features int            `json:"features"`
	File     string         `json:"file"`
	Loaded   time.Time      `json:"loaded"`
	Report   *engine.Report `json:"report,omitempty"`
}

func (m *served) info(report bool) modelInfo {
	in := modelInfo{Name: m.name, Method: m.model.Method(), Dim: m.model.Dim(), Features: m.features, File: m.path, Loaded: m.loaded}
	if report {
		r := m.model.Report()
		in.Report = &r
	}
	return in
}

func (s *server) listModels(w http.ResponseWriter, r *http.Request) {
	out := struct {
		Models []modelInfo `json:"models"`
	}{Models: []modelInfo{}}
	for _, n := range s.names {
		out.Models = append(out.Models, s.slots[n].cur.Load().info(false))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *server) getModel(w http.ResponseWriter, r *http.Request) {
	sl, ok := s.slots[r.PathValue("name")]
	if !ok {
		s.fail(w, "", http.StatusNotFound, "not_found", fmt.Sprintf("no model %q (GET /v1/models lists them)", r.PathValue("name")))
		return
	}
	writeJSON(w, http.StatusOK, sl.cur.Load().info(true))
}

// transformRequest is the JSON body of a transform request.
type transformRequest struct {
	Rows [][]float64 `json:"rows"`
}

const npyType = "application/x-npy"

var errTooManyRows = errors.New("too many rows")

func (s *server) transform(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	name := r.PathValue("name")
	sl, ok := s.slots[name]
	if !ok {
		s.fail(w, "", http.StatusNotFound, "not_found", fmt.Sprintf("no model %q (GET /v1/models lists them)", name))
		return
	}
	code := http.StatusOK
	rows := 0
	defer func() { s.met.request(name, code, rows, time.Since(start)) }()
	// Admission: a bounded number of requests in the building at once.
	select {
	case s.admit <- struct{}{}:
		defer func() { <-s.admit }()
	default:
		code = http.StatusServiceUnavailable
		s.fail(w, name, code, "saturated", fmt.Sprintf("server saturated: %d requests in flight or queued; retry later", cap(s.admit)))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.timeout)
	defer cancel()
	npy := isNPY(r.Header.Get("Content-Type"))
	x, err := s.readRows(w, r, npy)
	if err != nil {
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			code = http.StatusRequestEntityTooLarge
			s.fail(w, name, code, "too_large", fmt.Sprintf("request body exceeds %d bytes (-max-body)", s.cfg.maxBody))
		case errors.Is(err, errTooManyRows):
			code = http.StatusRequestEntityTooLarge
			s.fail(w, name, code, "too_large", err.Error())
		default:
			code = http.StatusBadRequest
			s.fail(w, name, code, "bad_request", err.Error())
		}
		return
	}
	n, d := x.Dims()
	rows = n
	if n > s.cfg.maxRows {
		code = http.StatusRequestEntityTooLarge
		s.fail(w, name, code, "too_large", fmt.Sprintf("%d rows in one request; at most %d (-max-rows)", n, s.cfg.maxRows))
		return
	}
	// Wait for a work slot (bounded by the admission above).
	select {
	case s.work <- struct{}{}:
	case <-ctx.Done():
		code = http.StatusServiceUnavailable
		s.fail(w, name, code, "timeout", "timed out waiting for a free slot")
		return
	}
	m := sl.cur.Load()
	if s.hook != nil {
		s.hook()
	}
	y := mat.NewDense(n, m.model.Dim(), nil)
	if m.features > 0 && d != m.features {
		err = fmt.Errorf("%w: rows have %d features, model %s (%s) has %d", engine.ErrShape, d, name, m.model.Method(), m.features)
	} else if n == 1 {
		err = engine.TransformRow(ctx, m.model, y.RawRowView(0), x.RawRowView(0))
	} else {
		err = engine.TransformTo(ctx, m.model, y, x)
	}
	<-s.work
	if err != nil {
		switch {
		case ctx.Err() != nil:
			code = http.StatusGatewayTimeout
			s.fail(w, name, code, "timeout", fmt.Sprintf("request did not finish within %v (-timeout)", s.cfg.timeout))
		case errors.Is(err, engine.ErrShape), errors.Is(err, engine.ErrNotFinite), errors.Is(err, engine.ErrEmpty):
			code = http.StatusBadRequest
			s.fail(w, name, code, "bad_input", err.Error())
		case errors.Is(err, engine.ErrNoTransform):
			code = http.StatusUnprocessableEntity
			s.fail(w, name, code, "no_transform", err.Error())
		default:
			code = http.StatusInternalServerError
			s.fail(w, name, code, "internal", err.Error())
		}
		return
	}
	if npy {
		w.Header().Set("Content-Type", npyType)
		if err := dataio.WriteNPY(w, y); err != nil {
			s.met.error("write")
		}
		return
	}
	w.Header().Set("Content-Type", "application/json")
	buf := make([]byte, 0, 32+n*m.model.Dim()*24)
	buf = append(buf, `{"embedding":[`...)
	for i := 0; i < n; i++ {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, '[')
		for j, v := range y.RawRowView(i) {
			if j > 0 {
				buf = append(buf, ',')
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				buf = append(buf, "null"...)
				continue
			}
			buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
		}
		buf = append(buf, ']')
	}
	buf = append(buf, "]}\n"...)
	if _, err := w.Write(buf); err != nil {
		s.met.error("write")
	}
}

func isNPY(ct string) bool {
	ct, _, _ = strings.Cut(ct, ";")
	ct = strings.TrimSpace(strings.ToLower(ct))
	return ct == npyType || ct == "application/npy" || ct == "application/octet-stream"
}

// readRows reads the request's matrix: JSON {"rows": [...]} or an NPY
// body, within the body size limit.
func (s *server) readRows(w http.ResponseWriter, r *http.Request, npy bool) (*mat.Dense, error) {
	body := http.MaxBytesReader(w, r.Body, s.cfg.maxBody)
	if npy {
		x, err := dataio.ReadNPY(body)
		if err != nil {
			return nil, fmt.Errorf("NPY body: %w", err)
		}
		return x, nil
	}
	dec := json.NewDecoder(body)
	var req transformRequest
	if err := dec.Decode(&req); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, err
		}
		return nil, fmt.Errorf(`JSON body: %v (want {"rows": [[...], ...]})`, err)
	}
	if _, err := dec.Token(); err != io.EOF { // one object, nothing after it
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, err
		}
		return nil, errors.New(`JSON body: data after the object (want one {"rows": [[...], ...]})`)
	}
	if len(req.Rows) == 0 {
		return nil, errors.New(`JSON body: no rows (want {"rows": [[...], ...]})`)
	}
	d := len(req.Rows[0])
	if d == 0 {
		return nil, errors.New("JSON body: row 0 is empty")
	}
	if len(req.Rows) > s.cfg.maxRows {
		return nil, fmt.Errorf("%w: %d rows in one request; at most %d (-max-rows)", errTooManyRows, len(req.Rows), s.cfg.maxRows)
	}
	data := make([]float64, 0, len(req.Rows)*d)
	for i, row := range req.Rows {
		if len(row) != d {
			return nil, fmt.Errorf("JSON body: row %d has %d values, row 0 has %d", i, len(row), d)
		}
		data = append(data, row...)
	}
	return mat.NewDense(len(req.Rows), d, data), nil
}

// metrics counts what /metrics reports, in the Prometheus text format.
type metrics struct {
	mu       sync.Mutex
	requests map[[2]string]uint64 // (model, code)
	rows     map[string]uint64
	errors   map[string]uint64
	hist     map[string]*histogram
	reloads  map[string]uint64
	reloadEr map[string]uint64
}

// latencyBuckets are the histogram's upper bounds in seconds.
var latencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

type histogram struct {
	counts []uint64 // per bucket, then +Inf
	sum    float64
	n      uint64
}

func newMetrics() *metrics {
	return &metrics{requests: map[[2]string]uint64{}, rows: map[string]uint64{}, errors: map[string]uint64{},
		hist: map[string]*histogram{}, reloads: map[string]uint64{}, reloadEr: map[string]uint64{}}
}

func (m *metrics) request(model string, code, rows int, d time.Duration) {
	sec := d.Seconds()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests[[2]string{model, strconv.Itoa(code)}]++
	if code == http.StatusOK {
		m.rows[model] += uint64(rows)
	}
	h := m.hist[model]
	if h == nil {
		h = &histogram{counts: make([]uint64, len(latencyBuckets)+1)}
		m.hist[model] = h
	}
	i := sort.SearchFloat64s(latencyBuckets, sec)
	h.counts[i]++
	h.sum += sec
	h.n++
}

func (m *metrics) error(kind string) {
	m.mu.Lock()
	m.errors[kind]++
	m.mu.Unlock()
}

func (m *metrics) reloaded(model string) {
	m.mu.Lock()
	m.reloads[model]++
	m.mu.Unlock()
}

func (m *metrics) reloadErr(model string) {
	m.mu.Lock()
	m.reloadEr[model]++
	m.mu.Unlock()
}

func sortedKeys[V any](mp map[string]V) []string {
	ks := make([]string, 0, len(mp))
	for k := range mp {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func (m *metrics) write(w io.Writer, admitted, working int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	b.WriteString("# HELP manifold_requests_total Transform requests by model and HTTP status.\n# TYPE manifold_requests_total counter\n")
	keys := make([][2]string, 0, len(m.requests))
	for k := range m.requests {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i][0] < keys[j][0] || keys[i][0] == keys[j][0] && keys[i][1] < keys[j][1]
	})
	for _, k := range keys {
		fmt.Fprintf(&b, "manifold_requests_total{model=%q,code=%q} %d\n", k[0], k[1], m.requests[k])
	}
	b.WriteString("# HELP manifold_request_duration_seconds Transform request latency.\n# TYPE manifold_request_duration_seconds histogram\n")
	for _, model := range sortedKeys(m.hist) {
		h := m.hist[model]
		cum := uint64(0)
		for i, ub := range latencyBuckets {
			cum += h.counts[i]
			fmt.Fprintf(&b, "manifold_request_duration_seconds_bucket{model=%q,le=%q} %d\n", model, strconv.FormatFloat(ub, 'g', -1, 64), cum)
		}
		cum += h.counts[len(latencyBuckets)]
		fmt.Fprintf(&b, "manifold_request_duration_seconds_bucket{model=%q,le=\"+Inf\"} %d\n", model, cum)
		fmt.Fprintf(&b, "manifold_request_duration_seconds_sum{model=%q} %g\n", model, h.sum)
		fmt.Fprintf(&b, "manifold_request_duration_seconds_count{model=%q} %d\n", model, h.n)
	}
	b.WriteString("# HELP manifold_rows_total Rows mapped.\n# TYPE manifold_rows_total counter\n")
	for _, k := range sortedKeys(m.rows) {
		fmt.Fprintf(&b, "manifold_rows_total{model=%q} %d\n", k, m.rows[k])
	}
	b.WriteString("# HELP manifold_errors_total Error answers by kind.\n# TYPE manifold_errors_total counter\n")
	for _, k := range sortedKeys(m.errors) {
		fmt.Fprintf(&b, "manifold_errors_total{kind=%q} %d\n", k, m.errors[k])
	}
	b.WriteString("# HELP manifold_model_reloads_total Model files reloaded.\n# TYPE manifold_model_reloads_total counter\n")
	for _, k := range sortedKeys(m.reloads) {
		fmt.Fprintf(&b, "manifold_model_reloads_total{model=%q} %d\n", k, m.reloads[k])
	}
	b.WriteString("# HELP manifold_model_reload_errors_total Model files that failed to reload.\n# TYPE manifold_model_reload_errors_total counter\n")
	for _, k := range sortedKeys(m.reloadEr) {
		fmt.Fprintf(&b, "manifold_model_reload_errors_total{model=%q} %d\n", k, m.reloadEr[k])
	}
	fmt.Fprintf(&b, "# HELP manifold_requests_admitted Transform requests in flight or queued.\n# TYPE manifold_requests_admitted gauge\nmanifold_requests_admitted %d\n", admitted)
	fmt.Fprintf(&b, "# HELP manifold_requests_working Transform requests being mapped.\n# TYPE manifold_requests_working gauge\nmanifold_requests_working %d\n", working)
	io.WriteString(w, b.String())
}

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }
