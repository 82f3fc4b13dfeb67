package manifoldbeam

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local" // local paths; the command adds gs:// and s3://
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/beam/internal/modelcache"
	"github.com/manifoldlab/manifold/engine"
)

// Row is one input sample: its ID and its features. Err, when not empty,
// says why the row could not be read (an unparsable field); Project sends
// such a row to the dead letters with that text.
type Row struct {
	ID    string
	X     []float64
	Err   string
	Label string // the class label (ReadLabeledCSV), "" without one
}

// Embedded is one mapped row: the input row's ID and its coordinates.
type Embedded struct {
	ID string
	Y  []float64
}

// DeadLetter is a row that could not be mapped, with its ID and why (the
// engine's error text, or the reader's for an unparsable row).
type DeadLetter struct {
	ID    string
	Error string
}

// DefaultBlock is the number of rows Project hands to one Transform call.
const DefaultBlock = 256

// ErrModel is returned (wrapped) when the model file cannot be opened or
// loaded on a worker.
var ErrModel = errors.New("manifold-beam: model")

// Counter names (namespace "manifold"): rows in = rows out + dead letters.
const (
	MetricNamespace  = "manifold"
	MetricRowsIn     = "rows_in"
	MetricRowsOut    = "rows_out"
	MetricDeadLetter = "dead_letters"
)

var (
	rowsIn      = beam.NewCounter(MetricNamespace, MetricRowsIn)
	rowsOut     = beam.NewCounter(MetricNamespace, MetricRowsOut)
	deadLetters = beam.NewCounter(MetricNamespace, MetricDeadLetter)
)

func init() {
	beam.RegisterType(reflect.TypeOf((*Row)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*Embedded)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*DeadLetter)(nil)).Elem())
	register.DoFn4x1[context.Context, Row, func(Embedded), func(DeadLetter), error](&projectFn{})
	register.Emitter1[Embedded]()
	register.Emitter1[DeadLetter]()
}

// ProjectOptions tune Project; the zero value means DefaultBlock rows a
// block, transformed one block at a time.
type ProjectOptions struct {
	Block int // rows a Transform call; 0 means DefaultBlock

	// Parallel is the number of blocks a DoFn instance transforms at once
	// inside a bundle, each on its own goroutine (the engine's Transform
	// may itself use several cores); 0 or 1 means one block at a time, on
	// the bundle's goroutine. Runners that run a bundle per core (Flink,
	// Spark, Dataflow) need no more; the prism runner runs all the rows of
	// a stage as one bundle, so there it takes the cores of the machine.
	// The blocks are emitted in the order they were formed; in flight are
	// at most Parallel·Block rows besides the block being gathered.
	Parallel int
}

// Project maps every Row of rows with the model stored at modelPath (any
// path a registered Beam filesystem serves: a local path, gs://, s3://).
// It returns the embedded rows and the dead letters. The model is read and
// prepared (engine.Prepare) once per worker process (shared by the DoFn
// instances of that process);
// rows are gathered into blocks of equal width inside a bundle and each
// block is one Transform call, flushed when it is full and at the end of
// the bundle. When a block fails (a NaN, a wrong width), its rows are
// transformed one by one, so only the bad rows go to the dead letters,
// each with the engine's error text. The counters rows_in, rows_out and
// dead_letters (namespace "manifold") satisfy rows_in = rows_out + dead_letters.
func Project(s beam.Scope, modelPath string, rows beam.PCollection, opts ProjectOptions) (embedded, dead beam.PCollection) {
	s = s.Scope("manifold.Project")
	block := opts.Block
	if block <= 0 {
		block = DefaultBlock
	}
	return beam.ParDo2(s, &projectFn{ModelPath: modelPath, Block: block, Parallel: max(1, opts.Parallel)}, rows)
}

// models caches loaded models by path for the life of a worker process, so
// a model is read once per worker however many DoFn instances it runs (a
// failed load is retried by a later Setup).
var models modelcache.Cache[engine.Model]

// LoadModel reads the model file at path through Beam's filesystem registry
// (the scheme picks the filesystem: none for local, gs://, s3:// …).
func LoadModel(ctx context.Context, path string) (engine.Model, error) {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrModel, path, err)
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrModel, path, err)
	}
	defer r.Close()
	m, err := engine.Load(r)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrModel, path, err)
	}
	return m, nil
}

func cachedModel(ctx context.Context, path string) (engine.Model, error) {
	return models.Get(path, func() (engine.Model, error) {
		m, err := LoadModel(ctx, path)
		if err == nil {
			// What the first Transform would build, and the geodesic
			// table of Isomap and Landmark Isomap models where it fits
			// (engine.PrepareCtx, under the worker's context): a worker
			// maps many rows with one model.
			err = engine.PrepareCtx(ctx, m)
		}
		return m, err
	})
}

// projectFn is Project's DoFn. Exported fields travel to the workers.
type projectFn struct {
	ModelPath string
	Block     int
	Parallel  int // blocks in flight (≤ 1: transformed on the bundle's goroutine)

	model   engine.Model
	blocks  map[int]*[]Row // pending rows by width
	cur     *[]Row         // blocks' entry for the last row's width, curW
	curW    int
	in      int64     // rows taken since rows_in was last updated
	flights []*flight // blocks being transformed, oldest first (Parallel > 1)

	// The slices of landed blocks, reused by the next ones (only the
	// bundle's goroutine takes and returns them): a block's rows and its
	// mapped rows are not allocated again for every block.
	spareRows [][]Row
	spareEmb  [][]Embedded
}

// flight is one block's transform: its mapped rows and dead letters, or
// the error that fails the bundle (a cancelled context). done is closed
// when the fields are set.
type flight struct {
	done chan struct{}
	rows []Row // the block
	emb  []Embedded
	dead []DeadLetter
	err  error
}

// rowBlock is an empty block of rows, a landed block's where one is spare.
func (f *projectFn) rowBlock() []Row { return takeSpare(&f.spareRows, f.Block) }

// embBlock is an empty slice for a block's mapped rows, a landed block's
// where one is spare.
func (f *projectFn) embBlock() []Embedded { return takeSpare(&f.spareEmb, f.Block) }

// takeSpare pops an empty slice off spare, or makes one of capacity c.
func takeSpare[T any](spare *[][]T, c int) []T {
	n := len(*spare)
	if n == 0 {
		return make([]T, 0, c)
	}
	b := (*spare)[n-1]
	*spare = (*spare)[:n-1]
	return b
}

// recycle keeps the slices of a landed flight for the next blocks. Its
// mapped rows were emitted by value; their coordinates are not reused (each
// block's are a new allocation, which consumers may keep).
func (f *projectFn) recycle(fl *flight) {
	clear(fl.rows) // no references to the rows' features and IDs are kept
	clear(fl.emb)
	f.spareRows = append(f.spareRows, fl.rows[:0])
	f.spareEmb = append(f.spareEmb, fl.emb[:0])
	fl.rows, fl.emb = nil, nil
}

func (f *projectFn) Setup(ctx context.Context) error {
	m, err := cachedModel(ctx, f.ModelPath)
	if err != nil {
		return err
	}
	f.model = m
	return nil
}

func (f *projectFn) StartBundle(context.Context, func(Embedded), func(DeadLetter)) {
	f.blocks = map[int]*[]Row{}
	f.cur = nil
	f.in = 0
	f.flights = f.flights[:0]
}

// ProcessElement gathers r into the block of its width. rows_in is
// updated once a block, not once a row (a metric update costs about what
// a small model's Transform of a row does), always before the rows it
// counts come out, so rows_in = rows_out + dead_letters holds at the end.
func (f *projectFn) ProcessElement(ctx context.Context, r Row, emit func(Embedded), dead func(DeadLetter)) error {
	f.in++
	if r.Err != "" {
		f.count(ctx)
		deadLetters.Inc(ctx, 1)
		dead(DeadLetter{ID: r.ID, Error: r.Err})
		return nil
	}
	if w := len(r.X); f.cur == nil || w != f.curW { // rows of one width skip the map
		f.cur = f.blocks[w]
		if f.cur == nil {
			f.cur = new([]Row)
			f.blocks[w] = f.cur
		}
		f.curW = w
	}
	b := *f.cur
	if b == nil {
		b = f.rowBlock()
	}
	b = append(b, r)
	if len(b) < f.Block {
		*f.cur = b
		return nil
	}
	f.count(ctx)
	if f.Parallel > 1 {
		*f.cur = nil // b is the flight's now
	} else {
		*f.cur = b[:0] // b is done with when submit returns
	}
	return f.submit(ctx, b, emit, dead)
}

// count adds the rows taken so far to rows_in.
func (f *projectFn) count(ctx context.Context) {
	if f.in > 0 {
		rowsIn.Inc(ctx, f.in)
		f.in = 0
	}
}

func (f *projectFn) FinishBundle(ctx context.Context, emit func(Embedded), dead func(DeadLetter)) error {
	f.count(ctx)
	f.cur = nil
	for w, b := range f.blocks {
		if len(*b) == 0 {
			continue
		}
		if err := f.submit(ctx, *b, emit, dead); err != nil {
			return err
		}
		delete(f.blocks, w)
	}
	for len(f.flights) > 0 {
		if err := f.land(ctx, emit, dead); err != nil {
			return err
		}
	}
	return nil
}

// submit transforms block b: on the bundle's goroutine with Parallel ≤ 1,
// else on a goroutine of its own, once fewer than Parallel blocks are in
// flight. The results are emitted here, on the bundle's goroutine, in the
// order the blocks were formed (those already done are emitted at once).
func (f *projectFn) submit(ctx context.Context, b []Row, emit func(Embedded), dead func(DeadLetter)) error {
	if f.Parallel <= 1 {
		fl := flight{emb: f.embBlock()}
		fl.run(ctx, f.model, b)
		if err := fl.emit(ctx, emit, dead); err != nil {
			return err
		}
		clear(fl.emb)
		f.spareEmb = append(f.spareEmb, fl.emb[:0])
		return nil
	}
	for len(f.flights) >= f.Parallel {
		if err := f.land(ctx, emit, dead); err != nil {
			return err
		}
	}
	fl := &flight{done: make(chan struct{}), rows: b, emb: f.embBlock()}
	go func(m engine.Model) {
		defer close(fl.done)
		defer func() {
			if p := recover(); p != nil { // fail the bundle, as on the bundle's goroutine
				fl.err = fmt.Errorf("manifold-beam: %s Transform panicked: %v", m.Method(), p)
			}
		}()
		fl.run(ctx, m, b)
	}(f.model)
	f.flights = append(f.flights, fl)
	for len(f.flights) > 0 && f.flights[0].landed() { // emit what is done already, in order
		if err := f.land(ctx, emit, dead); err != nil {
			return err
		}
	}
	return nil
}

// landed reports whether the flight is done, without waiting.
func (fl *flight) landed() bool {
	select {
	case <-fl.done:
		return true
	default:
		return false
	}
}

// land waits for the oldest block in flight and emits its results. On an
// error it waits for the other flights too (none outlives the bundle).
func (f *projectFn) land(ctx context.Context, emit func(Embedded), dead func(DeadLetter)) error {
	fl := f.flights[0]
	<-fl.done
	f.flights[0] = nil
	f.flights = f.flights[1:]
	if err := fl.emit(ctx, emit, dead); err != nil {
		for _, o := range f.flights {
			<-o.done
		}
		f.flights = f.flights[:0]
		return err
	}
	f.recycle(fl)
	return nil
}

// run transforms one block of equal-width rows; on failure it isolates
// the bad rows by transforming row by row. Only a cancelled context fails
// the block (fl.err).
func (fl *flight) run(ctx context.Context, m engine.Model, b []Row) {
	emb, err := transformRows(ctx, m, b, fl.emb)
	if err == nil {
		fl.emb = emb
		return
	}
	if ctx.Err() != nil {
		fl.err = ctx.Err()
		return
	}
	for i := range b {
		emb, err := transformRows(ctx, m, b[i:i+1], fl.emb)
		if err != nil {
			if ctx.Err() != nil {
				fl.err = ctx.Err()
				return
			}
			fl.dead = append(fl.dead, DeadLetter{ID: b[i].ID, Error: err.Error()})
			continue
		}
		fl.emb = emb
	}
}

// emit sends a block's results on and counts them.
func (fl *flight) emit(ctx context.Context, emit func(Embedded), dead func(DeadLetter)) error {
	if fl.err != nil {
		return fl.err
	}
	for _, e := range fl.emb {
		emit(e)
	}
	if len(fl.emb) > 0 {
		rowsOut.Inc(ctx, int64(len(fl.emb)))
	}
	for _, d := range fl.dead {
		dead(d)
	}
	if len(fl.dead) > 0 {
		deadLetters.Inc(ctx, int64(len(fl.dead)))
	}
	return nil
}

// embed appends to dst the rows of b paired with the rows of y (their
// coordinates), the coordinates of the block in one new allocation (each
// row's slice capped at its own length, so an append by a consumer cannot
// reach its neighbour).
func embed(dst []Embedded, b []Row, y *mat.Dense) []Embedded {
	_, d := y.Dims()
	raw := y.RawMatrix()
	data := make([]float64, len(b)*d)
	for i := range b {
		row := data[i*d : (i+1)*d : (i+1)*d]
		copy(row, raw.Data[i*raw.Stride:i*raw.Stride+d])
		dst = append(dst, Embedded{ID: b[i].ID, Y: row})
	}
	return dst
}

// errWidth is the error of a row with no features.
var errWidth = errors.New("row has no features")

// blockBuffers holds the slices blocks are packed into, reused from block
// to block and bundle to bundle: a new one a block (1.6 MB for 256 rows of
// 784 features) cost its allocation and zeroing besides the copy.
var blockBuffers = sync.Pool{New: func() any { return new([]float64) }}

// transformRows packs rows (equal width) into one matrix, transforms it
// and appends to dst the rows paired with their coordinates. On an error
// it returns nil and appends nothing (dst's elements are not touched).
func transformRows(ctx context.Context, m engine.Model, b []Row, dst []Embedded) ([]Embedded, error) {
	w := len(b[0].X)
	if w == 0 {
		return nil, errWidth
	}
	buf := blockBuffers.Get().(*[]float64)
	defer blockBuffers.Put(buf) // after embed has copied y: y may share the input's memory
	data := (*buf)[:0]
	for _, r := range b {
		data = append(data, r.X...)
	}
	*buf = data
	y, err := m.Transform(ctx, mat.NewDense(len(b), w, data))
	if err != nil {
		return nil, err
	}
	if r, c := y.Dims(); r != len(b) || c == 0 {
		return nil, fmt.Errorf("model %s returned %d×%d for %d rows", m.Method(), r, c, len(b))
	}
	return embed(dst, b, y), nil
}
