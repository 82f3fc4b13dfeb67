package engine

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"math"
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
// method it does not know, or whose float arrays hold NaN or Inf. Arrays are what each model needs to map new
// points (its embedding, the training data or projection, a neighbour graph),
// named per method in its encode function.
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

// readModelData decodes a model file, checking every size against the
// bytes actually present.
func readModelData(r io.Reader) (*modelData, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%w: reading: %v", ErrModelFile, err)
	}
	if len(raw) < 20 || string(raw[:8]) != modelMagic {
		return nil, modelErr("not a manifold model file (no %q magic)", modelMagic)
	}
	if v := binary.LittleEndian.Uint32(raw[8:12]); v != modelFormatVersion {
		return nil, modelErr("format version %d; this build reads version %d", v, modelFormatVersion)
	}
	body, sum := raw[:len(raw)-4], binary.LittleEndian.Uint32(raw[len(raw)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, modelErr("checksum mismatch: the file is corrupted or truncated")
	}
	hl := int(binary.LittleEndian.Uint32(raw[12:16]))
	if hl > maxModelHeader || 16+hl > len(body) {
		return nil, modelErr("header length %d does not fit the file", hl)
	}
	var h modelHeader
	dec := json.NewDecoder(bytes.NewReader(body[16 : 16+hl]))
	if err := dec.Decode(&h); err != nil {
		return nil, modelErr("header: %v", err)
	}
	if h.Format != modelFormatVersion {
		return nil, modelErr("header format %d; this build reads %d", h.Format, modelFormatVersion)
	}
	rest := body[16+hl:]
	take := func(a arrayInfo) ([]byte, error) {
		if a.Rows < 0 || a.Cols < 0 || (a.Cols > 0 && a.Rows > len(rest)/8/a.Cols) {
			return nil, modelErr("array %q of %d×%d does not fit the file", a.Name, a.Rows, a.Cols)
		}
		n := a.Rows * a.Cols * 8
		b := rest[:n]
		rest = rest[n:]
		return b, nil
	}
	d := newModelData(h.Method, h.Params, h.Report)
	if d.params == nil {
		d.params = map[string]any{}
	}
	for _, a := range h.Floats {
		b, err := take(a)
		if err != nil {
			return nil, err
		}
		g := blas64.General{Rows: a.Rows, Cols: a.Cols, Stride: max(1, a.Cols), Data: make([]float64, a.Rows*a.Cols)}
		for i := range g.Data {
			v := math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, modelErr("array %q holds %v at element %d (a model holds finite numbers only)", a.Name, v, i)
			}
			g.Data[i] = v
		}
		d.floats[a.Name] = g
	}
	for _, a := range h.Ints {
		b, err := take(a)
		if err != nil {
			return nil, err
		}
		v := make([]int, a.Rows*a.Cols)
		for i := range v {
			x := int64(binary.LittleEndian.Uint64(b[8*i:]))
			if x < math.MinInt || x > math.MaxInt {
				return nil, modelErr("array %q: value out of range", a.Name)
			}
			v[i] = int(x)
		}
		d.ints[a.Name] = v
	}
	if len(rest) != 0 {
		return nil, modelErr("%d unexpected bytes after the arrays", len(rest))
	}
	return d, nil
}

// float returns a required float array of the given shape (cols < 0: any).
func (d *modelData) float(name string, rows, cols int) (blas64.General, error) {
	g, ok := d.floats[name]
	if !ok {
		return g, modelErr("%s model: missing array %q", d.method, name)
	}
	if (rows >= 0 && g.Rows != rows) || (cols >= 0 && g.Cols != cols) {
		return g, modelErr("%s model: array %q is %d×%d, want %d×%d", d.method, name, g.Rows, g.Cols, rows, cols)
	}
	return g, nil
}

// intArr returns a required int array of length n (n < 0: any).
func (d *modelData) intArr(name string, n int) ([]int, error) {
	v, ok := d.ints[name]
	if !ok {
		return nil, modelErr("%s model: missing array %q", d.method, name)
	}
	if n >= 0 && len(v) != n {
		return nil, modelErr("%s model: array %q has length %d, want %d", d.method, name, len(v), n)
	}
	return v, nil
}

// intParam returns a required integer parameter within [lo, hi].
func (d *modelData) intParam(name string, lo, hi int) (int, error) {
	v, ok := d.params[name].(float64)
	if !ok || v != math.Trunc(v) || v < float64(lo) || v > float64(hi) {
		return 0, modelErr("%s model: parameter %q = %v, want an integer in [%d, %d]", d.method, name, d.params[name], lo, hi)
	}
	return int(v), nil
}

// floatParam returns a required finite float parameter.
func (d *modelData) floatParam(name string) (float64, error) {
	v, ok := d.params[name].(float64)
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, modelErr("%s model: parameter %q = %v, want a finite number", d.method, name, d.params[name])
	}
	return v, nil
}

// stringParam returns a required string parameter.
func (d *modelData) stringParam(name string) (string, error) {
	v, ok := d.params[name].(string)
	if !ok {
		return "", modelErr("%s model: parameter %q = %v, want a string", d.method, name, d.params[name])
	}
	return v, nil
}

// decoders maps a method name to the function that rebuilds its model.
var decoders = map[string]func(*modelData) (Model, error){}

// Load reads a model written by a Model's Save. The error wraps
// ErrModelFile when the file is not a valid model of a known method.
func Load(r io.Reader) (Model, error) {
	d, err := readModelData(r)
	if err != nil {
		return nil, err
	}
	dec, ok := decoders[d.method]
	if !ok {
		return nil, modelErr("unknown method %q", d.method)
	}
	return dec(d)
}
