package dataio

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// ReadCSV reads a matrix from comma-separated text, one sample per line
// (format in the package documentation), decompressing gzip input. Errors
// about the content wrap ErrFormat and name the line and column. It is
// ReadCSVCtx with no context and the zero Limits.
func ReadCSV(r io.Reader) (*mat.Dense, error) {
	return ReadCSVCtx(context.Background(), r, Limits{})
}

// ReadCSVCtx is ReadCSV within lim, stopping with ctx's error once ctx is
// done (checked every 64 KiB of input). The matrix grows with the rows read
// and never past lim.MaxBytes: the row that would take it past is refused
// with an error wrapping ErrLimit.
func ReadCSVCtx(ctx context.Context, r io.Reader, lim Limits) (*mat.Dense, error) {
	br, closeZ, err := source(ctx, r, lim)
	if err != nil {
		return nil, err
	}
	defer closeZ()
	lr := &lineReader{r: br, max: lim.maxLine()}
	var (
		data     []float64
		fields   [][]byte
		rows     int
		cols     int // fields per row, set by the first data row
		colsLine int // the line that set cols
		first    = true
	)
	for {
		line, num, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		line = trimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		fields = splitComma(line, fields[:0])
		if first {
			first = false
			if isHeader(fields) {
				continue
			}
		}
		if cols == 0 {
			cols, colsLine = len(fields), num
		} else if len(fields) != cols {
			col := len(fields) + 1
			if len(fields) > cols {
				col = cols + 1
			}
			return nil, formatErr(num, col, "row has %s, want %d (as on line %d)", plural(len(fields), "field"), cols, colsLine)
		}
		if len(data)+cols > cap(data) {
			if data, err = growFloats(ctx, data, cols, lim, num); err != nil {
				return nil, err
			}
		}
		for j, f := range fields {
			v, err := parseCell(f)
			if err != nil {
				return nil, formatErr(num, j+1, "%s", err)
			}
			data = append(data, v)
		}
		rows++
	}
	if rows == 0 {
		if lr.num == 0 {
			return nil, emptyErr("empty file")
		}
		return nil, emptyErr("no data rows in %d line(s)", lr.num)
	}
	return mat.NewDense(rows, cols, data), nil
}

// growFloats returns data with room for more elements: capacity doubled
// (from 4096), capped so that the old and the new storage together, which
// are both held while the rows are copied, stay within lim.MaxBytes; an
// error wrapping ErrLimit when more does not fit. The rows are copied by
// copyCtx.
func growFloats(ctx context.Context, data []float64, more int, lim Limits, line int) ([]float64, error) {
	need := int64(len(data)) + int64(more)
	c := max(2*int64(cap(data)), 4096, need)
	if lim.MaxBytes > 0 {
		c = min(c, lim.MaxBytes/8-int64(cap(data)))
		if c < need {
			return nil, lim.budget(8*(int64(cap(data))+need), line, "the rows so far, with the copy made as they grow,")
		}
	}
	out := make([]float64, len(data), c)
	if err := copyCtx(ctx, out, data); err != nil {
		return nil, err
	}
	return out, nil
}

// splitComma appends the comma-separated fields of line to dst.
func splitComma(line []byte, dst [][]byte) [][]byte {
	for {
		i := bytes.IndexByte(line, ',')
		if i < 0 {
			return append(dst, line)
		}
		dst = append(dst, line[:i])
		line = line[i+1:]
	}
}

// isHeader reports whether no field of a line is a number, quoted or not
// (a line of quoted numbers is data, refused by parseCell).
func isHeader(fields [][]byte) bool {
	for _, f := range fields {
		f = trimSpace(f)
		if len(f) >= 2 && (f[0] == '"' || f[0] == '\'') && f[len(f)-1] == f[0] {
			f = f[1 : len(f)-1]
		}
		if _, err := parseCell(f); err == nil {
			return false
		}
	}
	return true
}

// parseCell parses one field: a finite float64 in decimal notation
// (decimalNumber), spaces around it allowed.
func parseCell(f []byte) (float64, error) {
	f = trimSpace(f)
	if len(f) == 0 {
		return 0, errors.New("empty field")
	}
	if msg := decimalNumber(f); msg != "" {
		return 0, errors.New(strconv.Quote(excerpt(f)) + msg)
	}
	v, err := strconv.ParseFloat(string(f), 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, errors.New(strconv.Quote(excerpt(f)) + " is out of the range of float64")
		}
		msg := strconv.Quote(excerpt(f)) + " is not a number"
		if bytes.ContainsAny(f, ";\t") {
			msg += " (fields are separated by commas)"
		}
		return 0, errors.New(msg)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, errors.New(strconv.Quote(excerpt(f)) + " is not a finite number")
	}
	return v, nil
}

// decimalNumber checks the grammar of a number of a CSV file,
//
//	[+-] (digits [. [digits]] | . digits) [(e|E) [+-] digits]
//
// and returns "" when f follows it, else the end of an error message that
// names what a reader might have meant: quotes, hexadecimal, digit
// separators (strconv.ParseFloat alone would accept "0x1p-2", "1_000" with
// a base prefix, "Inf" and "NaN", which no other reader of the file would
// read the same).
func decimalNumber(f []byte) string {
	switch {
	case f[0] == '"' || f[0] == '\'':
		return " is quoted: fields are plain numbers, without quotes"
	case bytes.ContainsRune(f, '_'):
		return " has a digit separator '_': fields are plain numbers"
	case len(f) > 2 && (f[0] == '0' || ((f[0] == '-' || f[0] == '+') && f[1] == '0')) && bytes.ContainsAny(f[:min(len(f), 3)], "xXbBoO"):
		return " is not decimal: hexadecimal, octal and binary numbers are refused"
	}
	i := 0
	if f[i] == '+' || f[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(f) && f[i] >= '0' && f[i] <= '9' {
			i++
		}
		return i - j
	}
	n := digits()
	if i < len(f) && f[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		switch strings.ToLower(string(f[i:])) {
		case "inf", "infinity", "nan":
			return " is not a finite number"
		}
		return " is not a number"
	}
	if i < len(f) && (f[i] == 'e' || f[i] == 'E') {
		i++
		if i < len(f) && (f[i] == '+' || f[i] == '-') {
			i++
		}
		if digits() == 0 {
			return " is not a number (an exponent without digits)"
		}
	}
	if i != len(f) {
		if bytes.ContainsAny(f, ";\t") {
			return " is not a number (fields are separated by commas)"
		}
		return " is not a number"
	}
	return ""
}

// WriteCSV writes the rows of m as comma-separated numbers, one row per
// line, each in the shortest form that reads back to the same float64.
func WriteCSV(w io.Writer, m mat.Matrix) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	r, c := m.Dims()
	var buf []byte
	for i := 0; i < r; i++ {
		buf = buf[:0]
		for j := 0; j < c; j++ {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = strconv.AppendFloat(buf, m.At(i, j), 'g', -1, 64)
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// plural renders "1 field", "3 fields".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
