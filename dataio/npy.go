package dataio

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"gonum.org/v1/gonum/mat"
)

// The NumPy file format (numpy/lib/format.py):
//
//	"\x93NUMPY" major minor
//	header length: uint16 LE (version 1), uint32 LE (versions 2 and 3)
//	header: a Python dict literal {'descr': '<f8', 'fortran_order': False,
//	        'shape': (n, d), } padded with spaces to a multiple of 64 bytes
//	        (16 in old files) and ending in '\n'; ASCII, UTF-8 in version 3
//	data: the elements, C or Fortran order, nothing after them
const (
	npyMagic = "\x93NUMPY"
	// maxNPYHeader bounds the header we read. numpy refuses headers over
	// 10 000 bytes by default; a real header of this format is under 200.
	maxNPYHeader = 1 << 20
	// maxNPYBytes bounds the payload a header may promise, so sizes never
	// overflow; the bytes are read as they come, never allocated up front.
	maxNPYBytes = math.MaxInt64 / 16
)

// npyType is a real numeric NumPy dtype.
type npyType struct {
	descr string // as in the header
	kind  byte   // 'b' bool, 'i' signed, 'u' unsigned, 'f' float
	size  int    // bytes per element
	order binary.ByteOrder
}

// ReadNPY reads a matrix from a NumPy .npy file (format in the package
// documentation). Errors about the content wrap ErrFormat, ErrUnsupported or
// ErrEmpty. It is ReadNPYCtx with no context and the zero Limits.
func ReadNPY(r io.Reader) (*mat.Dense, error) {
	return ReadNPYCtx(context.Background(), r, Limits{})
}

// ReadNPYCtx is ReadNPY within lim, stopping with ctx's error once ctx is
// done. The shape in the header is checked against lim.MaxBytes (12 bytes
// an element: 8, and the old storage held while it doubles; 8 more for
// Fortran order, which is reordered in a copy) before any data is read; an
// array that does not fit gives an error wrapping ErrLimit.
func ReadNPYCtx(ctx context.Context, r io.Reader, lim Limits) (*mat.Dense, error) {
	data, rows, cols, err := readNPY[float64](ctx, r, lim)
	if err != nil {
		return nil, err
	}
	return mat.NewDense(rows, cols, data), nil
}

// ReadNPY32Ctx is ReadNPYCtx into float32, for data that float32 holds
// well enough and that would not fit twice as large (float64 values are
// rounded to the nearest float32; one out of float32's range is an error
// wrapping ErrFormat): the rows × cols values, row-major. The budget
// counts 6 bytes an element (10 for Fortran order).
func ReadNPY32Ctx(ctx context.Context, r io.Reader, lim Limits) (data []float32, rows, cols int, err error) {
	return readNPY[float32](ctx, r, lim)
}

// ReadNPYShapeCtx reads only the header of the .npy stream r: the shape
// of its array as ReadNPYCtx would return it (rows: the first axis; cols:
// the product of the others), with the header's errors, without reading
// the data.
func ReadNPYShapeCtx(ctx context.Context, r io.Reader) (rows, cols int, err error) {
	h, err := readNPYHeader(bufio.NewReaderSize(&guard{ctx: ctx, r: r}, 4096))
	return h.rows, h.cols, err
}

// npyHeader is what a .npy header says: the element type, the order and
// the shape as rows × cols (the first axis, and the product of the others)
// with its element count.
type npyHeader struct {
	dt         npyType
	fortran    bool
	shape      []int
	rows, cols int
	elems      uint64
}

// readNPYHeader reads the magic string, version and header of a .npy
// stream and checks the shape.
func readNPYHeader(br *bufio.Reader) (npyHeader, error) {
	var pre [10]byte
	if n, err := io.ReadFull(br, pre[:8]); err != nil {
		return npyHeader{}, npyEOF(err, "npy: file has %d bytes, too short for the magic string and version", n)
	}
	if string(pre[:6]) != npyMagic {
		return npyHeader{}, formatErr(0, 0, "npy: not a NumPy file (it does not start with \\x93NUMPY)")
	}
	major, minor := pre[6], pre[7]
	var hlen int
	switch major {
	case 1:
		if _, err := io.ReadFull(br, pre[8:10]); err != nil {
			return npyHeader{}, npyEOF(err, "npy: file ends in the header length")
		}
		hlen = int(binary.LittleEndian.Uint16(pre[8:10]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return npyHeader{}, npyEOF(err, "npy: file ends in the header length")
		}
		h := binary.LittleEndian.Uint32(b[:])
		if h > maxNPYHeader {
			return npyHeader{}, formatErr(0, 0, "npy: header length %d exceeds %d bytes", h, maxNPYHeader)
		}
		hlen = int(h)
	default:
		return npyHeader{}, unsupported("npy: format version %d.%d (want 1.0, 2.0 or 3.0)", major, minor)
	}
	hdr := make([]byte, hlen)
	if n, err := io.ReadFull(br, hdr); err != nil {
		return npyHeader{}, npyEOF(err, "npy: header is %d bytes, the file ends after %d", hlen, n)
	}
	dt, fortran, shape, err := parseNPYHeader(hdr, major == 3)
	if err != nil {
		return npyHeader{}, err
	}
	// rows × cols, and the bytes the payload must have, without overflow.
	rows, cols := 1, 1
	elems := uint64(1)
	for i, d := range shape {
		hi, lo := bits.Mul64(elems, uint64(d))
		if hi != 0 || lo > maxNPYBytes/uint64(dt.size) {
			return npyHeader{}, formatErr(0, 0, "npy: shape %s is too large", shapeString(shape))
		}
		elems = lo
		if i == 0 {
			rows = d
		} else {
			cols *= d
		}
	}
	if elems == 0 {
		return npyHeader{}, emptyErr("npy: array of shape %s has no elements", shapeString(shape))
	}
	if uint64(rows)*uint64(cols) != elems || elems > uint64(math.MaxInt/8) {
		return npyHeader{}, formatErr(0, 0, "npy: shape %s is too large", shapeString(shape))
	}
	return npyHeader{dt: dt, fortran: fortran, shape: shape, rows: rows, cols: cols, elems: elems}, nil
}

// readNPY reads a .npy file's array as T, rows × cols.
func readNPY[T float32 | float64](ctx context.Context, r io.Reader, lim Limits) ([]T, int, int, error) {
	br := bufio.NewReaderSize(&guard{ctx: ctx, r: r, max: lim.maxInput()}, 1<<16)
	h, err := readNPYHeader(br)
	if err != nil {
		return nil, 0, 0, err
	}
	dt, fortran, shape, rows, cols, elems := h.dt, h.fortran, h.shape, h.rows, h.cols, h.elems
	var pre [1]byte
	size := int64(unsafe.Sizeof(T(0)))
	perElem := size * 3 / 2 // the element, and half again while the storage doubles as the data arrive
	if fortran && len(shape) > 1 {
		perElem += size // the reordered copy
	}
	if err := lim.budget(int64(elems)*perElem, 0, "npy: shape "+shapeString(shape)+" and its copies"); err != nil {
		return nil, 0, 0, err
	}
	data, nread, err := readNPYData[T](ctx, br, dt, int(elems), holds(r, elems*uint64(dt.size)))
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) && ctx.Err() == nil {
			return nil, 0, 0, formatErr(0, 0, "npy: data truncated: shape %s of %s needs %d bytes, the file has %d",
				shapeString(shape), dt.descr, elems*uint64(dt.size), nread)
		}
		return nil, 0, 0, err
	}
	if n, _ := br.Read(pre[:1]); n > 0 {
		return nil, 0, 0, formatErr(0, 0, "npy: bytes after the %d promised by shape %s of %s", elems*uint64(dt.size), shapeString(shape), dt.descr)
	}
	if fortran && len(shape) > 1 {
		data = fortranToC(data, shape)
	}
	if dt.kind == 'f' || size == 4 { // float32: a large integer or float64 may not fit
		for k, v := range data {
			if k%checkElems == 0 && ctx.Err() != nil {
				return nil, 0, 0, ctx.Err()
			}
			if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, 0, 0, formatErr(0, 0, "npy: row %d, column %d (0-based) is %v, not a finite number (as %T)", k/cols, k%cols, v, v)
			}
		}
	}
	return data, rows, cols, nil
}

// checkElems is how many elements the readers handle between two looks
// at their context (4 MB of float64, a millisecond or two).
const checkElems = 1 << 19

// copyCtx copies src into dst (at least as long) checkElems at a time,
// with a look at ctx before each piece: a reader's storage grown by
// doubling is copied so (a gigabyte in one copy took a second that a
// cancel could not interrupt).
func copyCtx[T any](ctx context.Context, dst, src []T) error {
	for lo := 0; lo < len(src); lo += checkElems {
		if err := ctx.Err(); err != nil {
			return err
		}
		copy(dst[lo:], src[lo:min(len(src), lo+checkElems)])
	}
	return nil
}

// holds reports whether r is a regular file of at least n bytes: its data
// can then be read into storage of the header's size at once. Otherwise
// (a stream, a decompressor, a file shorter than its header says) the
// storage grows as the data arrive, so that a header promising more than
// the input holds allocates no more than the input.
func holds(r io.Reader, n uint64) bool {
	f, ok := r.(interface{ Stat() (fs.FileInfo, error) })
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode().IsRegular() && fi.Size() >= 0 && uint64(fi.Size()) >= n
}

// npyEOF turns an early end of file into a format error.
func npyEOF(err error, format string, a ...any) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return formatErr(0, 0, format, a...)
	}
	return err
}

// readNPYData reads elems elements of type dt from r, converting them to
// T (through float64). With known (the input is known to hold them) their
// storage is allocated at once; otherwise it grows with the bytes actually
// read, doubling, each copy into the larger storage by copyCtx. It returns
// the bytes read, and on a short file io.ErrUnexpectedEOF.
func readNPYData[T float32 | float64](ctx context.Context, r io.Reader, dt npyType, elems int, known bool) ([]T, int, error) {
	data := make([]T, 0, min(elems, 1<<16))
	if known {
		data = make([]T, 0, elems)
	}
	buf := make([]byte, (1<<16)/dt.size*dt.size)
	var conv []float64
	nread := 0
	for len(data) < elems {
		want := min(len(buf), (elems-len(data))*dt.size)
		n, err := io.ReadFull(r, buf[:want])
		nread += n
		if need := len(data) + n/dt.size; need > cap(data) {
			grown := make([]T, len(data), min(max(2*cap(data), need), elems))
			if err := copyCtx(ctx, grown, data); err != nil {
				return nil, nread, err
			}
			data = grown
		}
		conv = appendConverted(conv[:0], buf[:n-n%dt.size], dt)
		for _, v := range conv {
			data = append(data, T(v))
		}
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return data, nread, err
		}
	}
	return data, nread, nil
}

// appendConverted appends the elements in b to dst as float64.
func appendConverted(dst []float64, b []byte, dt npyType) []float64 {
	o := dt.order
	switch {
	case dt.kind == 'b':
		for _, v := range b {
			if v != 0 {
				dst = append(dst, 1)
			} else {
				dst = append(dst, 0)
			}
		}
	case dt.kind == 'i' && dt.size == 1:
		for _, v := range b {
			dst = append(dst, float64(int8(v)))
		}
	case dt.kind == 'u' && dt.size == 1:
		for _, v := range b {
			dst = append(dst, float64(v))
		}
	case dt.kind == 'i' && dt.size == 2:
		for i := 0; i < len(b); i += 2 {
			dst = append(dst, float64(int16(o.Uint16(b[i:]))))
		}
	case dt.kind == 'u' && dt.size == 2:
		for i := 0; i < len(b); i += 2 {
			dst = append(dst, float64(o.Uint16(b[i:])))
		}
	case dt.kind == 'f' && dt.size == 2:
		for i := 0; i < len(b); i += 2 {
			dst = append(dst, halfToFloat64(o.Uint16(b[i:])))
		}
	case dt.kind == 'i' && dt.size == 4:
		for i := 0; i < len(b); i += 4 {
			dst = append(dst, float64(int32(o.Uint32(b[i:]))))
		}
	case dt.kind == 'u' && dt.size == 4:
		for i := 0; i < len(b); i += 4 {
			dst = append(dst, float64(o.Uint32(b[i:])))
		}
	case dt.kind == 'f' && dt.size == 4:
		for i := 0; i < len(b); i += 4 {
			dst = append(dst, float64(math.Float32frombits(o.Uint32(b[i:]))))
		}
	case dt.kind == 'i' && dt.size == 8:
		for i := 0; i < len(b); i += 8 {
			dst = append(dst, float64(int64(o.Uint64(b[i:]))))
		}
	case dt.kind == 'u' && dt.size == 8:
		for i := 0; i < len(b); i += 8 {
			dst = append(dst, float64(o.Uint64(b[i:])))
		}
	case dt.kind == 'f' && dt.size == 8:
		for i := 0; i < len(b); i += 8 {
			dst = append(dst, math.Float64frombits(o.Uint64(b[i:])))
		}
	default:
		panic("dataio: unreachable dtype " + dt.descr) // parseDtype admits only the cases above
	}
	return dst
}

// halfToFloat64 converts an IEEE 754 binary16 value.
func halfToFloat64(h uint16) float64 {
	exp := int(h>>10) & 0x1f
	frac := float64(h & 0x3ff)
	var v float64
	switch exp {
	case 0: // zero or subnormal: frac·2⁻²⁴
		v = math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		v = math.Inf(1)
	default: // (1024 + frac)·2^(exp−25)
		v = math.Ldexp(1024+frac, exp-25)
	}
	if h&0x8000 != 0 {
		v = -v
	}
	return v
}

// fortranToC reorders the elements of an array of the given shape from
// Fortran (first index fastest) to C order (last index fastest).
func fortranToC[T float32 | float64](in []T, shape []int) []T {
	out := make([]T, len(in))
	k := len(shape)
	cstride := make([]int, k) // C-order stride of each index
	cstride[k-1] = 1
	for i := k - 2; i >= 0; i-- {
		cstride[i] = cstride[i+1] * shape[i+1]
	}
	idx := make([]int, k)
	off := 0 // C offset of idx
	for _, v := range in {
		out[off] = v
		for d := 0; d < k; d++ { // advance idx in Fortran order
			idx[d]++
			off += cstride[d]
			if idx[d] < shape[d] {
				break
			}
			off -= idx[d] * cstride[d]
			idx[d] = 0
		}
	}
	return out
}

func shapeString(shape []int) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, d := range shape {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(d))
	}
	if len(shape) == 1 {
		b.WriteByte(',')
	}
	b.WriteByte(')')
	return b.String()
}

// parseNPYHeader checks and decodes the header dict.
func parseNPYHeader(hdr []byte, utf bool) (dt npyType, fortran bool, shape []int, err error) {
	if !utf {
		for _, c := range hdr {
			if c >= 0x80 {
				return dt, false, nil, formatErr(0, 0, "npy header: byte 0x%02x is not ASCII", c)
			}
		}
	} else if !utf8.Valid(hdr) {
		return dt, false, nil, formatErr(0, 0, "npy header: not valid UTF-8")
	}
	p := &pyParser{s: hdr}
	v, err := p.value()
	if err != nil {
		return dt, false, nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return dt, false, nil, formatErr(0, 0, "npy header: unexpected %q after the dictionary", excerpt(p.s[p.i:]))
	}
	d, ok := v.(pyDict)
	if !ok {
		return dt, false, nil, formatErr(0, 0, "npy header: not a dictionary")
	}
	for k := range d {
		if k != "descr" && k != "fortran_order" && k != "shape" {
			return dt, false, nil, formatErr(0, 0, "npy header: unexpected key %q", k)
		}
	}
	switch descr := d["descr"].(type) {
	case string:
		if dt, err = parseDtype(descr); err != nil {
			return dt, false, nil, err
		}
	case nil:
		return dt, false, nil, formatErr(0, 0, "npy header: no 'descr'")
	case pyList, pyTuple:
		return dt, false, nil, unsupported("npy: structured dtype (want a plain numeric array)")
	default:
		return dt, false, nil, formatErr(0, 0, "npy header: 'descr' is not a string")
	}
	switch f := d["fortran_order"].(type) {
	case bool:
		fortran = f
	case nil:
		return dt, false, nil, formatErr(0, 0, "npy header: no 'fortran_order'")
	default:
		return dt, false, nil, formatErr(0, 0, "npy header: 'fortran_order' is not True or False")
	}
	t, ok := d["shape"].(pyTuple)
	if !ok {
		if d["shape"] == nil {
			return dt, false, nil, formatErr(0, 0, "npy header: no 'shape'")
		}
		return dt, false, nil, formatErr(0, 0, "npy header: 'shape' is not a tuple")
	}
	if len(t) > 32 { // numpy's NPY_MAXDIMS is 32 (64 in numpy 2)
		return dt, false, nil, formatErr(0, 0, "npy header: shape has %d dimensions", len(t))
	}
	shape = make([]int, len(t))
	for i, e := range t {
		n, ok := e.(int64)
		if !ok || n < 0 || uint64(n) > uint64(math.MaxInt) {
			return dt, false, nil, formatErr(0, 0, "npy header: shape entry %d is %v, not a dimension", i, e)
		}
		shape[i] = int(n)
	}
	return dt, fortran, shape, nil
}

// parseDtype parses a dtype string such as '<f8' or '|u1'.
func parseDtype(s string) (npyType, error) {
	dt := npyType{descr: s, order: binary.LittleEndian}
	rest := s
	if rest != "" {
		switch rest[0] {
		case '<', '|', '=': // '=' is native; numpy writes '<' or '>' instead
			rest = rest[1:]
		case '>':
			dt.order = binary.BigEndian
			rest = rest[1:]
		}
	}
	if rest == "" {
		return dt, formatErr(0, 0, "npy header: dtype %q", s)
	}
	dt.kind = rest[0]
	size, err := strconv.Atoi(rest[1:])
	if err != nil || size <= 0 {
		if strings.ContainsRune("OUSaVMm", rune(dt.kind)) {
			return dt, unsupported("npy: dtype %q is not numeric", s)
		}
		return dt, formatErr(0, 0, "npy header: dtype %q", s)
	}
	dt.size = size
	switch {
	case dt.kind == 'b' && size == 1,
		(dt.kind == 'i' || dt.kind == 'u') && (size == 1 || size == 2 || size == 4 || size == 8),
		dt.kind == 'f' && (size == 2 || size == 4 || size == 8):
		return dt, nil
	case dt.kind == 'c':
		return dt, unsupported("npy: complex dtype %q (want a real numeric dtype)", s)
	case dt.kind == 'f':
		return dt, unsupported("npy: dtype %q (extended precision; want float16, float32 or float64)", s)
	case strings.ContainsRune("OUSaVMm", rune(dt.kind)):
		return dt, unsupported("npy: dtype %q is not numeric", s)
	}
	return dt, formatErr(0, 0, "npy header: dtype %q", s)
}

// WriteNPY writes m as a NumPy .npy file: format version 1.0, dtype '<f8',
// C order, shape (rows, cols).
func WriteNPY(w io.Writer, m mat.Matrix) error {
	r, c := m.Dims()
	dict := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }", r, c)
	// Pad so that magic (6) + version (2) + length (2) + header is a
	// multiple of 64, the header ending in '\n'.
	pad := 63 - (10+len(dict))%64
	hdr := dict + strings.Repeat(" ", pad) + "\n"
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString(npyMagic)
	bw.Write([]byte{1, 0})
	var b [8]byte
	binary.LittleEndian.PutUint16(b[:2], uint16(len(hdr)))
	bw.Write(b[:2])
	bw.WriteString(hdr)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(m.At(i, j)))
			if _, err := bw.Write(b[:]); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// A minimal parser of the Python literals a .npy header holds: dicts,
// tuples, lists, strings, integers, True, False and None.
type (
	pyDict  map[string]any
	pyTuple []any
	pyList  []any
)

type pyParser struct {
	s     []byte
	i     int
	depth int
}

func (p *pyParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *pyParser) errorf(format string, a ...any) error {
	return formatErr(0, 0, "npy header: byte %d: %s", p.i, fmt.Sprintf(format, a...))
}

func (p *pyParser) value() (any, error) {
	p.space()
	if p.i >= len(p.s) {
		return nil, p.errorf("header ends where a value should be")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.container('}')
	case c == '(':
		return p.container(')')
	case c == '[':
		return p.container(']')
	case c == '\'' || c == '"':
		return p.str()
	case c == '-' || c == '+' || (c >= '0' && c <= '9'):
		return p.int()
	case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
		j := p.i
		for j < len(p.s) && (p.s[j] >= 'A' && p.s[j] <= 'Z' || p.s[j] >= 'a' && p.s[j] <= 'z') {
			j++
		}
		word := string(p.s[p.i:j])
		switch word {
		case "True":
			p.i = j
			return true, nil
		case "False":
			p.i = j
			return false, nil
		case "None":
			p.i = j
			return nil, nil
		}
		return nil, p.errorf("unexpected %q", excerpt([]byte(word)))
	default:
		return nil, p.errorf("unexpected %q", string(rune(c)))
	}
}

// container parses a dict, tuple or list; p.s[p.i] is its opening bracket.
func (p *pyParser) container(end byte) (any, error) {
	if p.depth >= 8 {
		return nil, p.errorf("nested too deeply")
	}
	p.depth++
	defer func() { p.depth-- }()
	p.i++
	var items []any
	dict := pyDict{}
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == end {
			p.i++
			break
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		if end == '}' {
			k, ok := v.(string)
			if !ok {
				return nil, p.errorf("dictionary key is not a string")
			}
			p.space()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return nil, p.errorf("want ':' after key %q", excerpt([]byte(k)))
			}
			p.i++
			if v, err = p.value(); err != nil {
				return nil, err
			}
			if _, dup := dict[k]; dup {
				return nil, p.errorf("key %q twice", excerpt([]byte(k)))
			}
			dict[k] = v
		} else {
			items = append(items, v)
		}
		p.space()
		if p.i >= len(p.s) {
			return nil, p.errorf("header ends inside a %q…%q", closing(end), end)
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case end:
		default:
			return nil, p.errorf("want ',' or %q, got %q", end, p.s[p.i])
		}
	}
	switch end {
	case '}':
		return dict, nil
	case ')':
		return pyTuple(items), nil
	}
	return pyList(items), nil
}

func closing(end byte) byte {
	switch end {
	case '}':
		return '{'
	case ')':
		return '('
	}
	return '['
}

func (p *pyParser) str() (any, error) {
	q := p.s[p.i]
	p.i++
	var b []byte
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch {
		case c == q:
			return string(b), nil
		case c == '\\' && p.i < len(p.s):
			b = append(b, p.s[p.i])
			p.i++
		case c == '\n':
			return nil, p.errorf("line break inside a string")
		default:
			b = append(b, c)
		}
	}
	return nil, p.errorf("unterminated string")
}

func (p *pyParser) int() (any, error) {
	j := p.i
	if p.s[j] == '-' || p.s[j] == '+' {
		j++
	}
	start := j
	for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
		j++
	}
	if j == start {
		return nil, p.errorf("sign without digits")
	}
	n, err := strconv.ParseInt(string(p.s[p.i:j]), 10, 64)
	if err != nil {
		return nil, p.errorf("integer %q out of range", excerpt(p.s[p.i:j]))
	}
	if j < len(p.s) && (p.s[j] == 'L' || p.s[j] == 'l') { // Python 2 long, in old files
		j++
	}
	p.i = j
	return n, nil
}
