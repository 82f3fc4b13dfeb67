package sparse

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// ErrMatrixMarket is wrapped by every error reading a malformed or
// unsupported MatrixMarket file; the message names the line.
var ErrMatrixMarket = errors.New("sparse: MatrixMarket")

// ReadMatrixMarket reads a MatrixMarket file (NIST format) from r: the
// coordinate format with field real, double, integer or pattern (pattern
// entries are 1) and symmetry general, symmetric or skew-symmetric (the
// mirror entries are added), and the array format (real, double or integer;
// general or symmetric), which scipy.io.mmwrite uses for dense arrays.
// Complex and hermitian files are refused. Gzip-compressed input is
// recognised by its magic bytes. Duplicate coordinate entries are summed.
// Errors wrap ErrMatrixMarket and give the line number.
func ReadMatrixMarket(r io.Reader) (*CSR, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %v", ErrMatrixMarket, err)
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, 1<<16)
	}
	p := &mmParser{r: br}
	return p.parse()
}

// ReadMatrixMarketFile reads the MatrixMarket file at path (gzip or plain).
func ReadMatrixMarketFile(path string) (*CSR, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a, err := ReadMatrixMarket(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

type mmParser struct {
	r    *bufio.Reader
	line int
}

func (p *mmParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: line %d: %s", ErrMatrixMarket, p.line, fmt.Sprintf(format, args...))
}

// next returns the next line that is neither blank nor a comment, trimmed.
func (p *mmParser) next() (string, error) {
	for {
		s, err := p.r.ReadString('\n')
		if s == "" && err != nil {
			if err == io.EOF {
				return "", io.EOF
			}
			return "", fmt.Errorf("%w: line %d: %v", ErrMatrixMarket, p.line+1, err)
		}
		p.line++
		s = strings.TrimSpace(s)
		if s == "" || s[0] == '%' {
			continue
		}
		return s, nil
	}
}

func (p *mmParser) parse() (*CSR, error) {
	head, err := p.r.ReadString('\n')
	p.line = 1
	if head == "" && err != nil {
		return nil, p.errorf("empty input, expected a %%%%MatrixMarket header")
	}
	f := strings.Fields(strings.ToLower(head))
	if len(f) != 5 || f[0] != "%%matrixmarket" {
		return nil, p.errorf("expected header \"%%%%MatrixMarket matrix <format> <field> <symmetry>\", got %q", strings.TrimSpace(head))
	}
	if f[1] != "matrix" {
		return nil, p.errorf("object %q not supported (only matrix)", f[1])
	}
	format, field, sym := f[2], f[3], f[4]
	switch field {
	case "real", "double", "integer", "pattern":
	case "complex":
		return nil, p.errorf("complex matrices are not supported")
	default:
		return nil, p.errorf("unknown field %q", field)
	}
	switch sym {
	case "general", "symmetric", "skew-symmetric":
	case "hermitian":
		return nil, p.errorf("hermitian matrices are not supported")
	default:
		return nil, p.errorf("unknown symmetry %q", sym)
	}
	switch format {
	case "coordinate":
		return p.coordinate(field, sym)
	case "array":
		if field == "pattern" {
			return nil, p.errorf("array format cannot have field pattern")
		}
		return p.array(sym)
	default:
		return nil, p.errorf("unknown format %q (coordinate or array)", format)
	}
}

func (p *mmParser) sizeLine(n int) ([]int, error) {
	s, err := p.next()
	if err != nil {
		return nil, p.errorf("missing size line")
	}
	f := strings.Fields(s)
	if len(f) != n {
		return nil, p.errorf("size line %q: want %d integers", s, n)
	}
	out := make([]int, n)
	for k, t := range f {
		v, err := strconv.Atoi(t)
		if err != nil || v < 0 {
			return nil, p.errorf("size line: %q is not a non-negative integer", t)
		}
		out[k] = v
	}
	return out, nil
}

func (p *mmParser) coordinate(field, sym string) (*CSR, error) {
	sz, err := p.sizeLine(3)
	if err != nil {
		return nil, err
	}
	r, c, nnz := sz[0], sz[1], sz[2]
	if sym != "general" && r != c {
		return nil, p.errorf("%s matrix must be square, is %d×%d", sym, r, c)
	}
	if err := p.checkShape(r, c, nnz); err != nil {
		return nil, err
	}
	capacity := nnz
	if sym != "general" {
		capacity *= 2
	}
	// Storage grows with the entries actually read, never on the word of
	// the size line alone.
	t := NewCOO(r, c, min(capacity, 1<<16))
	want := 3
	if field == "pattern" {
		want = 2
	}
	for k := 0; k < nnz; k++ {
		s, err := p.next()
		if err == io.EOF {
			return nil, p.errorf("unexpected end of file after %d of %d entries", k, nnz)
		}
		if err != nil {
			return nil, err
		}
		f := strings.Fields(s)
		if len(f) != want {
			return nil, p.errorf("entry %q: want %d fields", s, want)
		}
		i, err1 := strconv.Atoi(f[0])
		j, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			return nil, p.errorf("entry %q: indices must be integers", s)
		}
		if i < 1 || i > r || j < 1 || j > c {
			return nil, p.errorf("entry (%d, %d) out of range for %d×%d (indices are 1-based)", i, j, r, c)
		}
		v := 1.0
		if field != "pattern" {
			v, err = p.value(f[2], field)
			if err != nil {
				return nil, err
			}
		}
		switch sym {
		case "symmetric":
			if j > i {
				return nil, p.errorf("entry (%d, %d) above the diagonal in a symmetric file", i, j)
			}
		case "skew-symmetric":
			if j >= i {
				return nil, p.errorf("entry (%d, %d) on or above the diagonal in a skew-symmetric file", i, j)
			}
		}
		t.Add(i-1, j-1, v)
		if sym != "general" && i != j {
			if sym == "skew-symmetric" {
				t.Add(j-1, i-1, -v)
			} else {
				t.Add(j-1, i-1, v)
			}
		}
	}
	if err := p.trailing(); err != nil {
		return nil, err
	}
	return t.ToCSR(), nil
}

// mmMaxSide is the number of rows or columns a file may declare whatever
// its entries (a CSR row pointer of 2²⁰ + 1 entries is 8 MiB); beyond it a
// side may be at most 8 times the entries, so a forged size line cannot
// make the reader allocate much more than the file holds.
const mmMaxSide = 1 << 20

func (p *mmParser) checkShape(r, c, nnz int) error {
	for _, s := range []struct {
		what string
		n    int
	}{{"rows", r}, {"columns", c}} {
		if s.n > mmMaxSide && s.n/8 > nnz {
			return p.errorf("size line declares %d %s for %d entries (at most %d, or 8 per entry)", s.n, s.what, nnz, mmMaxSide)
		}
	}
	return nil
}

func (p *mmParser) value(s, field string) (float64, error) {
	if field == "integer" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, p.errorf("value %q is not an integer", s)
		}
		return float64(v), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, p.errorf("value %q is not a number", s)
	}
	return v, nil
}

func (p *mmParser) trailing() error {
	s, err := p.next()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return err
	}
	return p.errorf("unexpected data %q after the last entry", s)
}

// array reads the dense column-major array format.
func (p *mmParser) array(sym string) (*CSR, error) {
	sz, err := p.sizeLine(2)
	if err != nil {
		return nil, err
	}
	r, c := sz[0], sz[1]
	if sym != "general" && r != c {
		return nil, p.errorf("%s matrix must be square, is %d×%d", sym, r, c)
	}
	elements := math.MaxInt // the file must list r·c of them
	if r == 0 || c <= math.MaxInt/r {
		elements = r * c
	}
	if err := p.checkShape(r, c, elements); err != nil {
		return nil, err
	}
	t := NewCOO(r, c, 0)
	for j := 0; j < c; j++ {
		i0 := 0
		switch sym {
		case "symmetric":
			i0 = j
		case "skew-symmetric":
			i0 = j + 1
		}
		for i := i0; i < r; i++ {
			s, err := p.next()
			if err == io.EOF {
				return nil, p.errorf("unexpected end of file at element (%d, %d)", i+1, j+1)
			}
			if err != nil {
				return nil, err
			}
			f := strings.Fields(s)
			if len(f) != 1 {
				return nil, p.errorf("element %q: want one value", s)
			}
			v, err := p.value(f[0], "real")
			if err != nil {
				return nil, err
			}
			if v == 0 {
				continue
			}
			t.Add(i, j, v)
			if i != j && sym == "symmetric" {
				t.Add(j, i, v)
			} else if i != j && sym == "skew-symmetric" {
				t.Add(j, i, -v)
			}
		}
	}
	if err := p.trailing(); err != nil {
		return nil, err
	}
	return t.ToCSR(), nil
}

// MMOptions says how WriteMatrixMarket writes a matrix. The zero value
// writes "coordinate real general".
type MMOptions struct {
	// Symmetric writes only the lower triangle with symmetry "symmetric";
	// the matrix must be symmetric (checked exactly).
	Symmetric bool
	// Pattern writes the positions only (field "pattern").
	Pattern bool
	// Integer writes values as integers (field "integer"); they must be
	// whole numbers.
	Integer bool
	// Comment lines, written after the header with a leading '%'.
	Comment string
}

// WriteMatrixMarket writes A to w in the coordinate format, values in the
// shortest decimal form that reads back to the same float64.
func WriteMatrixMarket(w io.Writer, a *CSR, opt MMOptions) error {
	field := "real"
	switch {
	case opt.Pattern:
		field = "pattern"
	case opt.Integer:
		field = "integer"
	}
	sym := "general"
	nnz := a.NNZ()
	if opt.Symmetric {
		if !a.IsSymmetric(0) {
			return fmt.Errorf("%w: WriteMatrixMarket: symmetric output asked for a matrix that is not symmetric", ErrInvalid)
		}
		sym = "symmetric"
		nnz = 0
		for i := 0; i < a.r; i++ {
			for p := a.indptr[i]; p < a.indptr[i+1] && a.ind[p] <= i; p++ {
				nnz++
			}
		}
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	fmt.Fprintf(bw, "%%%%MatrixMarket matrix coordinate %s %s\n", field, sym)
	if opt.Comment != "" {
		for _, l := range strings.Split(opt.Comment, "\n") {
			fmt.Fprintf(bw, "%%%s\n", l)
		}
	}
	fmt.Fprintf(bw, "%d %d %d\n", a.r, a.c, nnz)
	var buf []byte
	for i := 0; i < a.r; i++ {
		for p := a.indptr[i]; p < a.indptr[i+1]; p++ {
			j := a.ind[p]
			if opt.Symmetric && j > i {
				break
			}
			buf = buf[:0]
			buf = strconv.AppendInt(buf, int64(i+1), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(j+1), 10)
			switch {
			case opt.Pattern:
			case opt.Integer:
				v := a.data[p]
				if v != float64(int64(v)) {
					return fmt.Errorf("%w: WriteMatrixMarket: integer output, but entry (%d, %d) = %v", ErrInvalid, i, j, v)
				}
				buf = append(buf, ' ')
				buf = strconv.AppendInt(buf, int64(v), 10)
			default:
				buf = append(buf, ' ')
				buf = strconv.AppendFloat(buf, a.data[p], 'g', -1, 64)
			}
			buf = append(buf, '\n')
			if _, err := bw.Write(buf); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// WriteMatrixMarketFile writes A to path, gzip-compressed when the name ends
// in ".gz".
func WriteMatrixMarketFile(path string, a *CSR, opt MMOptions) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	if strings.HasSuffix(path, ".gz") {
		zw := gzip.NewWriter(f)
		if err := WriteMatrixMarket(zw, a, opt); err != nil {
			return err
		}
		return zw.Close()
	}
	return WriteMatrixMarket(f, a, opt)
}
