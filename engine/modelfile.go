package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"os"
	"runtime/debug"
	"sort"

	"gonum.org/v1/gonum/blas/blas64"
)

// The model file format, version 1. All integers are little-endian.
//
//	offset  size  content
//	0       8     magic "MANIFOLD"
//	8       4     uint32 format version (1)
//	12      4     uint32 header length H
//	16      H     JSON header: {"format":1, "method":"isomap", "library":"<module version>",
//	              "params":{…settings…}, "floats":[{"name":…,"rows":…,"cols":…},…],
//	              "ints":[{"name":…,"rows":1,"cols":len},…], "report":{…}}
//	16+H    …     the float arrays in header order, row-major float64
//	…       …     the int arrays in header order, int64
//	end−4   4     uint32 CRC-32 (IEEE) of every byte before it
//
// A reader rejects, with an error wrapping ErrModelFile, a file whose magic,
// version or checksum do not match, whose sizes do not add up, or whose
// method it does not know, or whose float arrays hold NaN, Inf or
// magnitudes no fit produces (maxModelValue). Arrays are what each model needs to map new
// points (its embedding, the training data or projection, a neighbour graph),
// named per method in its fields method (codec.go).
const (
	modelMagic         = "MANIFOLD"
	modelFormatVersion = 1
	maxModelHeader     = 16 << 20
)

type arrayInfo struct {
	Name string `json:"name"`
	Rows int    `json:"rows"`
	Cols int    `json:"cols"`
}

type modelHeader struct {
	Format  int            `json:"format"`
	Method  string         `json:"method"`
	Library string         `json:"library"`
	Params  map[string]any `json:"params"`
	Floats  []arrayInfo    `json:"floats"`
	Ints    []arrayInfo    `json:"ints"`
	Report  *Report        `json:"report,omitempty"`
}

// modelData is a model in transit to or from a file.
type modelData struct {
	method string
	params map[string]any
	floats map[string]blas64.General
	ints   map[string][]int
	report *Report
}

func newModelData(method string, params map[string]any, rep *Report) *modelData {
	return &modelData{method: method, params: params, floats: map[string]blas64.General{}, ints: map[string][]int{}, report: rep}
}

// Version returns the module version of the manifold library in this
// binary, or "(devel)".
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	const path = "github.com/manifoldlab/manifold"
	if bi.Main.Path == path {
		return bi.Main.Version
	}
	for _, d := range bi.Deps {
		if d.Path == path {
			return d.Version
		}
	}
	return "(devel)"
}

func sortedKeys[V any](m map[string]V) []string {
	k := make([]string, 0, len(m))
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

// write encodes d in the model file format.
func (d *modelData) write(w io.Writer) error {
	h := modelHeader{Format: modelFormatVersion, Method: d.method, Library: Version(), Params: d.params, Report: d.report}
	fnames, inames := sortedKeys(d.floats), sortedKeys(d.ints)
	for _, n := range fnames {
		g := d.floats[n]
		h.Floats = append(h.Floats, arrayInfo{n, g.Rows, g.Cols})
	}
	for _, n := range inames {
		h.Ints = append(h.Ints, arrayInfo{n, 1, len(d.ints[n])})
	}
	hdr, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("engine: encoding model header: %w", err)
	}
	var buf bytes.Buffer
	buf.WriteString(modelMagic)
	var b4 [4]byte
	binary.LittleEndian.PutUint32(b4[:], modelFormatVersion)
	buf.Write(b4[:])
	binary.LittleEndian.PutUint32(b4[:], uint32(len(hdr)))
	buf.Write(b4[:])
	buf.Write(hdr)
	var b8 [8]byte
	for _, n := range fnames {
		g := d.floats[n]
		for i := 0; i < g.Rows; i++ {
			for _, v := range g.Data[i*g.Stride : i*g.Stride+g.Cols] {
				binary.LittleEndian.PutUint64(b8[:], math.Float64bits(v))
				buf.Write(b8[:])
			}
		}
	}
	for _, n := range inames {
		for _, v := range d.ints[n] {
			binary.LittleEndian.PutUint64(b8[:], uint64(int64(v)))
			buf.Write(b8[:])
		}
	}
	binary.LittleEndian.PutUint32(b4[:], crc32.ChecksumIEEE(buf.Bytes()))
	buf.Write(b4[:])
	_, err = w.Write(buf.Bytes())
	return err
}

func modelErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrModelFile, fmt.Sprintf(format, a...))
}

// Magnitudes a model's arrays may hold. Fit refuses data whose squared
// distances would overflow (values past about 1e152 for small data sets),
// so no fitted model holds a value past √MaxFloat64 ≈ 1.34e154, or past
// MaxFloat64/16 in the arrays of squared quantities (variances, mean
// squared geodesics). Load refuses larger values: they come from a
// crafted or corrupted file, and would overflow to Inf and NaN in
// Transform. Eigenvalues are only bounded by being finite: a sum over N
// points of squared geodesics (τ's) or a fourth-degree form (OIP's M) can
// pass MaxFloat64/16 in a fit, and Transform reads them only in Laplacian
// eigenmaps, as 1 − λ (FuzzFit found an Isomap model Load refused).
var (
	maxModelValue   = math.Sqrt(math.MaxFloat64)
	maxModelSquared = math.MaxFloat64 / 16
	squaredArrays   = map[string]bool{"variance": true, "mean_sq": true}
)

// modelLimit is the largest |value| Load accepts in the array name.
func modelLimit(name string) float64 {
	switch {
	case name == "eigenvalues":
		return math.MaxFloat64
	case squaredArrays[name]:
		return maxModelSquared
	}
	return maxModelValue
}

// LoadOptions bound LoadCtx.
type LoadOptions struct {
	// MaxBytes, when positive, is the memory the model's arrays may take;
	// zero means DefaultMaxBytes (what the machine has, less a margin). A
	// file whose header declares more is refused with ErrMemoryBudget
	// before anything is allocated.
	MaxBytes int64
}

// modelReader reads a model file, keeping its CRC-32 and checking ctx
// every 64 KiB.
type modelReader struct {
	ctx context.Context
	r   io.Reader
	crc hash.Hash32
	n   int64
}

func (m *modelReader) read(p []byte) error {
	for len(p) > 0 {
		if err := m.ctx.Err(); err != nil {
			return err
		}
		k, err := io.ReadFull(m.r, p[:min(len(p), 1<<16)])
		m.crc.Write(p[:k])
		m.n += int64(k)
		p = p[k:]
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return modelErr("the file ends after %d bytes, before the sizes its header declares: truncated", m.n)
		}
		if err != nil {
			if cerr := m.ctx.Err(); cerr != nil {
				return cerr // a read cut by the cancellation (a deadline)
			}
			return fmt.Errorf("%w: reading: %w", ErrModelFile, err)
		}
	}
	return nil
}

// remaining returns the bytes left in r when it can tell (a regular file,
// a bytes or strings reader), else -1.
func remaining(r io.Reader) int64 {
	switch v := r.(type) {
	case interface{ Len() int }:
		return int64(v.Len())
	case *os.File:
		fi, err := v.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return -1
		}
		off, err := v.Seek(0, io.SeekCurrent)
		if err != nil {
			return -1
		}
		return fi.Size() - off
	}
	return -1
}

// readModelData decodes a model file: the fixed part and the header first,
// then, once the sizes the header declares fit the bytes the file holds
// (when the reader can tell) and the budget, the arrays, each allocated as
// its bytes arrive.
func readModelData(ctx context.Context, r io.Reader, maxBytes int64) (*modelData, error) {
	left := remaining(r)
	mr := &modelReader{ctx: ctx, r: bufio.NewReaderSize(r, 1<<16), crc: crc32.NewIEEE()}
	var fixed [16]byte
	if err := mr.read(fixed[:]); err != nil || string(fixed[:8]) != modelMagic {
		if err != nil && !errors.Is(err, ErrModelFile) {
			return nil, err
		}
		return nil, modelErr("not a manifold model file (no %q magic)", modelMagic)
	}
	if v := binary.LittleEndian.Uint32(fixed[8:12]); v != modelFormatVersion {
		return nil, modelErr("format version %d; this build reads version %d", v, modelFormatVersion)
	}
	hl := int64(binary.LittleEndian.Uint32(fixed[12:16]))
	if hl > maxModelHeader || (left >= 0 && 16+hl+4 > left) {
		return nil, modelErr("header length %d does not fit the file: truncated, or not a model file", hl)
	}
	hdr := make([]byte, hl)
	if err := mr.read(hdr); err != nil {
		return nil, err
	}
	var h modelHeader
	dec := json.NewDecoder(bytes.NewReader(hdr))
	if err := dec.Decode(&h); err != nil {
		return nil, modelErr("header: %v", err)
	}
	if h.Format != modelFormatVersion {
		return nil, modelErr("header format %d; this build reads %d", h.Format, modelFormatVersion)
	}
	// The bytes the arrays take, without overflow.
	var total int64
	for _, a := range append(append([]arrayInfo(nil), h.Floats...), h.Ints...) {
		if a.Rows < 0 || a.Cols < 0 || (a.Cols > 0 && int64(a.Rows) > (math.MaxInt64/16-total)/8/int64(a.Cols)) {
			return nil, modelErr("array %q of %d×%d does not fit any file", a.Name, a.Rows, a.Cols)
		}
		total += 8 * int64(a.Rows) * int64(a.Cols)
	}
	if have := left - 16 - hl - 4; left >= 0 && total > have {
		return nil, modelErr("the header declares %d bytes of arrays, the file holds %d: truncated, or a size that does not fit the file", total, have)
	} else if left >= 0 && total < have {
		return nil, modelErr("%d unexpected bytes after the arrays the header declares", have-total)
	}
	if maxBytes > 0 && total > maxBytes {
		return nil, fmt.Errorf("%w: the model's arrays take %s, more than the budget of %s", ErrMemoryBudget, fmtBytes(total), fmtBytes(maxBytes))
	}
	d := newModelData(h.Method, h.Params, h.Report)
	if d.params == nil {
		d.params = map[string]any{}
	}
	var buf [1 << 16]byte
	// each reads n little-endian words of 8 bytes, calling put for each;
	// the caller's storage grows as they arrive.
	each := func(n int, put func(i int, w uint64) error) error {
		for i := 0; i < n; {
			k := min(n-i, len(buf)/8)
			if err := mr.read(buf[:8*k]); err != nil {
				return err
			}
			for j := 0; j < k; j++ {
				if err := put(i+j, binary.LittleEndian.Uint64(buf[8*j:])); err != nil {
					return err
				}
			}
			i += k
		}
		return nil
	}
	for _, a := range h.Floats {
		n := a.Rows * a.Cols
		limit := modelLimit(a.Name)
		data := make([]float64, 0, min(n, 1<<16))
		err := each(n, func(i int, w uint64) error {
			v := math.Float64frombits(w)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return modelErr("array %q holds %v at element %d (a model holds finite numbers only)", a.Name, v, i)
			}
			if math.Abs(v) > limit {
				return modelErr("array %q holds %.4g at element %d, past the %.3g no fit produces (values overflow in Transform)", a.Name, v, i, limit)
			}
			data = append(data, v)
			return nil
		})
		if err != nil {
			return nil, err
		}
		d.floats[a.Name] = blas64.General{Rows: a.Rows, Cols: a.Cols, Stride: max(1, a.Cols), Data: data[:n:n]}
	}
	for _, a := range h.Ints {
		n := a.Rows * a.Cols
		v := make([]int, 0, min(n, 1<<16))
		err := each(n, func(i int, w uint64) error {
			x := int64(w)
			if x < math.MinInt || x > math.MaxInt {
				return modelErr("array %q: value out of range", a.Name)
			}
			v = append(v, int(x))
			return nil
		})
		if err != nil {
			return nil, err
		}
		d.ints[a.Name] = v
	}
	sum := mr.crc.Sum32()
	var tail [4]byte
	if _, err := io.ReadFull(mr.r, tail[:]); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, modelErr("checksum missing: the file is truncated")
	}
	if binary.LittleEndian.Uint32(tail[:]) != sum {
		return nil, modelErr("checksum mismatch: the file is corrupted or truncated")
	}
	if k, _ := mr.r.Read(tail[:1]); k > 0 {
		return nil, modelErr("unexpected bytes after the checksum")
	}
	return d, nil
}

// Load reads a model written by a Model's Save. The error wraps
// ErrModelFile when the file is not a valid model of a known method. It is
// LoadCtx with no context and the default budget.
func Load(r io.Reader) (Model, error) {
	return LoadCtx(context.Background(), r, LoadOptions{})
}

// LoadCtx is Load within opts, stopping with ctx's error once ctx is done
// (checked every 64 KiB). It reads the header before the arrays and refuses
// sizes the file cannot hold (when r is a regular file or has a Len) or
// that exceed the budget (ErrMemoryBudget), before it allocates: a device
// such as /dev/zero, a truncated file or a forged size costs a few bytes of
// reading. Values past the magnitudes no fit produces are refused too
// (ErrModelFile).
func LoadCtx(ctx context.Context, r io.Reader, opts LoadOptions) (Model, error) {
	maxBytes := opts.MaxBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes()
	}
	d, err := readModelData(ctx, r, maxBytes)
	if err != nil {
		return nil, err
	}
	m, ok := LookupMethod(d.method)
	if !ok {
		return nil, modelErr("unknown method %q", d.method)
	}
	return loadModel(d, m.load())
}
