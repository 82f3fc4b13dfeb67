package dataio

import (
	"bytes"
	"compress/gzip"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestReadCSV(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want *mat.Dense
	}{
		{"plain", "1,2,3\n4,5,6\n", mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})},
		{"no final newline", "1,2\n3,4", mat.NewDense(2, 2, []float64{1, 2, 3, 4})},
		{"header", "x,y\n1,2\n3,4\n", mat.NewDense(2, 2, []float64{1, 2, 3, 4})},
		{"quoted header", "\"x\",\"y, z\"\n1,2\n", mat.NewDense(1, 2, []float64{1, 2})},
		{"comment header", "# x y\n1 , 2\n", mat.NewDense(1, 2, []float64{1, 2})},
		{"CRLF and BOM", "\xef\xbb\xbfa,b\r\n1,2\r\n3,4\r\n", mat.NewDense(2, 2, []float64{1, 2, 3, 4})},
		{"blank lines and spaces", "\n  1 ,\t2  \n\n3,4\n\n", mat.NewDense(2, 2, []float64{1, 2, 3, 4})},
		{"one column", "v\n1\n2\n3\n", mat.NewDense(3, 1, []float64{1, 2, 3})},
		{"formats", "0.25,1e-300,-0,+7.,.5E+2,2e-1\n", mat.NewDense(1, 6, []float64{0.25, 1e-300, 0, 7, 50, 0.2})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadCSV(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if !mat.Equal(got, tc.want) {
				t.Fatalf("got\n%v\nwant\n%v", mat.Formatted(got), mat.Formatted(tc.want))
			}
		})
	}
}

func TestReadCSVErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		kind error
		msg  string
	}{
		{"empty", "", ErrEmpty, "empty file"},
		{"header only", "a,b\n", ErrEmpty, "no data rows in 1 line(s)"},
		{"comments only", "# a\n\n", ErrEmpty, "no data rows in 2 line(s)"},
		{"ragged short", "1,2,3\n4,5,6\n7,8\n", ErrFormat, "line 3, column 3: row has 2 fields, want 3 (as on line 1)"},
		{"ragged long", "x,y\n1,2\n3,4,5\n", ErrFormat, "line 3, column 3: row has 3 fields, want 2 (as on line 2)"},
		{"non-numeric", "1,2\n3,abc\n", ErrFormat, `line 2, column 2: "abc" is not a number`},
		{"mixed first line", "1,abc\n", ErrFormat, `line 1, column 2: "abc" is not a number`},
		{"empty cell", "1,2\n3,\n", ErrFormat, "line 2, column 2: empty field"},
		{"NaN", "1,2\nNaN,4\n", ErrFormat, `line 2, column 1: "NaN" is not a finite number`},
		{"Inf", "1,-inf\n", ErrFormat, `line 1, column 2: "-inf" is not a finite number`},
		{"out of range", "1,1e999\n", ErrFormat, `line 1, column 2: "1e999" is out of the range of float64`},
		{"long cell", "1," + strings.Repeat("z", 100) + "\n", ErrFormat, `"` + strings.Repeat("z", 40) + `…" is not a number`},
		{"semicolons", "1;2\n3;4\n", ErrFormat, `line 2, column 1: "3;4" is not a number (fields are separated by commas)`},
		{"binary", "\x00\x01\x02\n\x03", ErrFormat, "line 2, column 1"},
		{"quoted numbers", "\"1.5\", \" -2e3 \"\n", ErrFormat, `line 1, column 1: "\"1.5\"" is quoted: fields are plain numbers, without quotes`},
		{"quoted after a row", "1,2\n'3',4\n", ErrFormat, `line 2, column 1: "'3'" is quoted`},
		{"hex float", "1,0x1p-2\n", ErrFormat, `line 1, column 2: "0x1p-2" is not decimal: hexadecimal, octal and binary numbers are refused`},
		{"negative hex", "-0X10,1\n", ErrFormat, `"-0X10" is not decimal`},
		{"digit separator", "1_000,2\n", ErrFormat, `line 1, column 1: "1_000" has a digit separator '_'`},
		{"hex separator", "1,0x_1p0\n", ErrFormat, `"0x_1p0" has a digit separator`},
		{"exponent without digits", "1,2e\n", ErrFormat, `"2e" is not a number (an exponent without digits)`},
		{"lone dot", "1,.\n", ErrFormat, `"." is not a number`},
		{"infinity", "1,Infinity\n", ErrFormat, `"Infinity" is not a finite number`},
		{"not gzip after magic", "\x1f\x8bxxxxxxxxxxxxxxxxxxxx", ErrFormat, "gzip"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ReadCSV(strings.NewReader(tc.in))
			if err == nil {
				t.Fatalf("no error; read %v", mat.Formatted(m))
			}
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %q, want %v containing %q", err, tc.kind, tc.msg)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error spans lines: %q", err)
			}
		})
	}
}

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestReadCSVGzip(t *testing.T) {
	z := gzipped(t, "a,b\n1,2\n3,4\n")
	m, err := ReadCSV(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(m, mat.NewDense(2, 2, []float64{1, 2, 3, 4})) {
		t.Fatalf("got %v", mat.Formatted(m))
	}
	// A truncated or corrupted stream is a format error, never a panic or
	// a silently shorter matrix.
	for _, bad := range [][]byte{z[:len(z)-6], z[:12], append(append([]byte{}, z[:15]...), bytes.Repeat([]byte{0xff}, 20)...)} {
		if _, err := ReadCSV(bytes.NewReader(bad)); !errors.Is(err, ErrFormat) {
			t.Errorf("corrupt gzip: error %v, want ErrFormat", err)
		}
	}
}

func TestReadCSVLongLine(t *testing.T) {
	const cols = 30000 // about 200 KB on one line, more than the buffer
	var b strings.Builder
	for r := 0; r < 2; r++ {
		for j := 0; j < cols; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString("0.125")
		}
		b.WriteByte('\n')
	}
	m, err := ReadCSV(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if r, c := m.Dims(); r != 2 || c != cols || m.At(1, cols-1) != 0.125 {
		t.Fatalf("dims %d×%d", r, c)
	}
}

func TestCSVRoundTrip(t *testing.T) {
	m := mat.NewDense(3, 3, []float64{math.Pi, -1e-310, 1e300, 0, math.Nextafter(1, 2), -7, 0.1, 1.0 / 3, 123456789})
	var b bytes.Buffer
	if err := WriteCSV(&b, m); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCSV(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(got, m) {
		t.Fatalf("round trip: got\n%v\nwant\n%v", mat.Formatted(got), mat.Formatted(m))
	}
}
