package dataio

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// ReadCSV reads a matrix from comma-separated text, one sample per line
// (format in the package documentation), decompressing gzip input. Errors
// about the content wrap ErrFormat and name the line and column.
func ReadCSV(r io.Reader) (*mat.Dense, error) {
	br, closeZ, err := maybeGunzip(r)
	if err != nil {
		return nil, err
	}
	defer closeZ()
	lr := &lineReader{r: br}
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

// isHeader reports whether no field of a line is a number.
func isHeader(fields [][]byte) bool {
	for _, f := range fields {
		if _, err := parseCell(f); err == nil {
			return false
		}
	}
	return true
}

// parseCell parses one field: a finite float64, spaces and one pair of
// double quotes around it allowed.
func parseCell(f []byte) (float64, error) {
	f = trimSpace(f)
	if len(f) >= 2 && f[0] == '"' && f[len(f)-1] == '"' {
		f = trimSpace(f[1 : len(f)-1])
	}
	if len(f) == 0 {
		return 0, errors.New("empty field")
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
