package dataio

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The fixtures are written by testdata/make_npy.py with numpy.

func readNPYFile(t *testing.T, name string) (*mat.Dense, error) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return ReadNPY(bytes.NewReader(b))
}

func TestReadNPYDtypes(t *testing.T) {
	for _, code := range []string{"b1", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f2", "f4", "f8"} {
		for _, endian := range []string{"le", "be"} {
			for _, order := range []string{"c", "f"} {
				name := fmt.Sprintf("%s_%s_%s.npy", code, endian, order)
				if _, err := os.Stat(filepath.Join("testdata", name)); err != nil {
					continue // one-byte dtypes have no big-endian file
				}
				t.Run(name, func(t *testing.T) {
					m, err := readNPYFile(t, name)
					if err != nil {
						t.Fatal(err)
					}
					if r, c := m.Dims(); r != 3 || c != 4 {
						t.Fatalf("dims %d×%d, want 3×4", r, c)
					}
					for i := 0; i < 3; i++ {
						for j := 0; j < 4; j++ {
							want := float64(4*i + j - 5)
							switch code[0] {
							case 'u':
								want += 5
							case 'b':
								want = 0
								if 4*i+j-5 > 0 {
									want = 1
								}
							}
							if got := m.At(i, j); got != want {
								t.Fatalf("[%d,%d] = %v, want %v", i, j, got, want)
							}
						}
					}
				})
			}
		}
	}
}

func TestReadNPYShapes(t *testing.T) {
	for _, tc := range []struct {
		name       string
		rows, cols int
		at         func(i, j int) float64
	}{
		// (2, 3, 4) → 2×12, the trailing dimensions flattened in C order.
		{"cube_c.npy", 2, 12, func(i, j int) float64 { return float64(12*i + j) }},
		{"cube_f.npy", 2, 12, func(i, j int) float64 { return float64(12*i + j) }},
		{"vector.npy", 5, 1, func(i, j int) float64 { return float64(i) }},
		{"scalar.npy", 1, 1, func(i, j int) float64 { return 2.5 }},
		{"version2.npy", 3, 4, func(i, j int) float64 { return float64(4*i + j - 5) }},
		{"version3.npy", 3, 4, func(i, j int) float64 { return float64(4*i + j - 5) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := readNPYFile(t, tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if r, c := m.Dims(); r != tc.rows || c != tc.cols {
				t.Fatalf("dims %d×%d, want %d×%d", r, c, tc.rows, tc.cols)
			}
			for i := 0; i < tc.rows; i++ {
				for j := 0; j < tc.cols; j++ {
					if got, want := m.At(i, j), tc.at(i, j); got != want {
						t.Fatalf("[%d,%d] = %v, want %v", i, j, got, want)
					}
				}
			}
		})
	}
}

func TestReadNPYRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind error
		msg  string
	}{
		{"complex.npy", ErrUnsupported, `complex dtype "<c16"`},
		{"strings.npy", ErrUnsupported, `dtype "<U2" is not numeric`},
		{"structured.npy", ErrUnsupported, "structured dtype"},
		{"longdouble.npy", ErrUnsupported, "extended precision"},
		{"empty.npy", ErrEmpty, "shape (0, 3) has no elements"},
		{"nan.npy", ErrFormat, "row 1, column 0 (0-based) is NaN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readNPYFile(t, tc.name)
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %v, want %v containing %q", err, tc.kind, tc.msg)
			}
		})
	}
}

// npyBytes builds a version 1.0 file with the given header dict and payload.
func npyBytes(dict string, payload []byte) []byte {
	var b bytes.Buffer
	b.WriteString(npyMagic)
	b.Write([]byte{1, 0})
	hdr := dict + "\n"
	binary.Write(&b, binary.LittleEndian, uint16(len(hdr)))
	b.WriteString(hdr)
	b.Write(payload)
	return b.Bytes()
}

func TestReadNPYMalformed(t *testing.T) {
	good, err := os.ReadFile("testdata/f8_le_c.npy")
	if err != nil {
		t.Fatal(err)
	}
	f8 := func(n int) []byte { return make([]byte, 8*n) }
	huge := npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4611686018427387904), }", nil)
	for _, tc := range []struct {
		name string
		in   []byte
		kind error
		msg  string
	}{
		{"empty file", nil, ErrFormat, "too short"},
		{"not npy", []byte("hello, world\n1,2,3\n"), ErrFormat, "not a NumPy file"},
		{"truncated header length", good[:9], ErrFormat, "header length"},
		{"truncated header", good[:40], ErrFormat, "the file ends after"},
		{"truncated data", good[:len(good)-5], ErrFormat, "data truncated: shape (3, 4) of <f8 needs 96 bytes, the file has 91"},
		{"trailing bytes", append(append([]byte{}, good...), 0), ErrFormat, "bytes after the 96"},
		{"version 4", append([]byte(npyMagic), 4, 0, 0, 0), ErrUnsupported, "format version 4.0"},
		{"v2 header too long", append([]byte(npyMagic), 2, 0, 0xff, 0xff, 0xff, 0xff), ErrFormat, "header length 4294967295 exceeds"},
		{"forged shape, no data", npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000, 1000), }", nil), ErrFormat, "data truncated"},
		{"shape overflow", huge, ErrFormat, "too large"},
		{"negative dimension", npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (-3, 4), }", f8(12)), ErrFormat, "shape entry 0 is -3"},
		{"shape not a tuple", npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': 12, }", f8(12)), ErrFormat, "'shape' is not a tuple"},
		{"shape of strings", npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': ('a',), }", f8(1)), ErrFormat, "shape entry 0"},
		{"no descr", npyBytes("{'fortran_order': False, 'shape': (1,), }", f8(1)), ErrFormat, "no 'descr'"},
		{"no shape", npyBytes("{'descr': '<f8', 'fortran_order': False}", f8(1)), ErrFormat, "no 'shape'"},
		{"no order", npyBytes("{'descr': '<f8', 'shape': (1,)}", f8(1)), ErrFormat, "no 'fortran_order'"},
		{"bad order", npyBytes("{'descr': '<f8', 'fortran_order': 1, 'shape': (1,)}", f8(1)), ErrFormat, "not True or False"},
		{"extra key", npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'x': 1}", f8(1)), ErrFormat, `unexpected key "x"`},
		{"duplicate key", npyBytes("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (1,)}", f8(1)), ErrFormat, "twice"},
		{"bad dtype", npyBytes("{'descr': '<x8', 'fortran_order': False, 'shape': (1,)}", f8(1)), ErrFormat, `dtype "<x8"`},
		{"dtype size 3", npyBytes("{'descr': '<i3', 'fortran_order': False, 'shape': (1,)}", f8(1)), ErrFormat, `dtype "<i3"`},
		{"dtype no size", npyBytes("{'descr': '<f', 'fortran_order': False, 'shape': (1,)}", f8(1)), ErrFormat, `dtype "<f"`},
		{"object dtype", npyBytes("{'descr': '|O', 'fortran_order': False, 'shape': (1,)}", f8(1)), ErrUnsupported, "not numeric"},
		{"not a dict", npyBytes("('<f8', False, (1,))", f8(1)), ErrFormat, "not a dictionary"},
		{"unterminated dict", npyBytes("{'descr': '<f8', 'fortran_order': False", f8(1)), ErrFormat, "header ends"},
		{"unterminated string", npyBytes("{'descr: 1}", f8(1)), ErrFormat, "line break inside a string"},
		{"garbage after dict", npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1,)} x", f8(1)), ErrFormat, "after the dictionary"},
		{"deep nesting", npyBytes("{'descr': "+strings.Repeat("(", 100)+strings.Repeat(")", 100)+"}", f8(1)), ErrFormat, "nested too deeply"},
		{"non-ASCII header", npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'é': 1}", f8(1)), ErrFormat, "not ASCII"},
		{"integer overflow", npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,)}", f8(1)), ErrFormat, "out of range"},
		{"unknown word", npyBytes("{'descr': '<f8', 'fortran_order': false, 'shape': (1,)}", f8(1)), ErrFormat, `unexpected "false"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ReadNPY(bytes.NewReader(tc.in))
			if err == nil {
				t.Fatalf("no error; read %v", mat.Formatted(m))
			}
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %q, want %v containing %q", err, tc.kind, tc.msg)
			}
		})
	}
}

// A header that promises much more than the file holds must not allocate
// for the promise.
func TestReadNPYForgedShapeAllocation(t *testing.T) {
	in := npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (100000000, 1000), }", make([]byte, 800))
	var ms0, ms1 runtimeMem
	ms0.read()
	_, err := ReadNPY(bytes.NewReader(in))
	ms1.read()
	if !errors.Is(err, ErrFormat) {
		t.Fatalf("error %v, want ErrFormat", err)
	}
	if d := ms1.total - ms0.total; d > 8<<20 {
		t.Fatalf("reading a forged 800 GB header allocated %d bytes", d)
	}
	// The same from a file: a regular file shorter than its header says
	// gets storage that grows with the data, as a stream does.
	path := filepath.Join(t.TempDir(), "forged.npy")
	if err := os.WriteFile(path, in, 0o644); err != nil {
		t.Fatal(err)
	}
	ms0.read()
	_, err = ReadMatrixFileCtx(context.Background(), path, Limits{})
	ms1.read()
	if !errors.Is(err, ErrFormat) {
		t.Fatalf("file: error %v, want ErrFormat", err)
	}
	if d := ms1.total - ms0.total; d > 8<<20 {
		t.Fatalf("reading a forged 800 GB header from a file allocated %d bytes", d)
	}
}

// A regular file that holds what its header promises is read into storage
// of that size at once: no copies while it arrives (a 2 GB file took 8.3 s
// and 4.2 GB that way, 1.5 s and 2.05 GB now), and the same values.
func TestReadNPYFileAllocatesOnce(t *testing.T) {
	const rows, cols = 1 << 15, 32 // 8 MiB of float64
	x := mat.NewDense(rows, cols, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = float64(i%1000) - 0.5
	}
	var b bytes.Buffer
	if err := WriteNPY(&b, x); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "x.npy")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var ms0, ms1 runtimeMem
	ms0.read()
	m, err := ReadMatrixFileCtx(context.Background(), path, Limits{})
	ms1.read()
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(m, x) {
		t.Fatal("the file's values differ from those written")
	}
	// The data (8 MiB) and the reader's buffers; growing by doubling
	// allocated about twice the data.
	if d := ms1.total - ms0.total; d > 8<<20+1<<20 {
		t.Fatalf("reading an 8 MiB .npy file allocated %d bytes", d)
	}
	// A stream of the same bytes still grows its storage and reads the same.
	s, err := ReadNPY(bytes.NewReader(b.Bytes()))
	if err != nil || !mat.Equal(s, x) {
		t.Fatalf("stream: %v, equal %v", err, err == nil && mat.Equal(s, x))
	}
}

func TestWriteNPYMatchesNumpy(t *testing.T) {
	want, err := os.ReadFile("testdata/written_by_numpy.npy")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteNPY(&b, mat.NewDense(2, 3, []float64{0, 1, 2, 3, 4, 5})); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Fatalf("WriteNPY wrote\n%q\nnumpy wrote\n%q", b.Bytes(), want)
	}
}

func TestNPYRoundTrip(t *testing.T) {
	for _, dims := range [][2]int{{1, 1}, {7, 3}, {200, 17}} {
		m := mat.NewDense(dims[0], dims[1], nil)
		for i := 0; i < dims[0]; i++ {
			for j := 0; j < dims[1]; j++ {
				m.Set(i, j, math.Sin(float64(i*31+j))*math.Pow(10, float64(j%7-3)))
			}
		}
		var b bytes.Buffer
		if err := WriteNPY(&b, m); err != nil {
			t.Fatal(err)
		}
		if b.Len()%8 != 0 || (b.Len()-8*dims[0]*dims[1])%64 != 0 {
			t.Errorf("%v: header not 64-byte aligned: %d bytes", dims, b.Len())
		}
		got, err := ReadNPY(&b)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(got, m) {
			t.Errorf("%v: round trip changed the matrix", dims)
		}
	}
}

func TestHalfToFloat64(t *testing.T) {
	for _, tc := range []struct {
		h    uint16
		want float64
	}{
		{0x0000, 0}, {0x3c00, 1}, {0xc000, -2}, {0x7bff, 65504}, {0x0001, math.Ldexp(1, -24)},
		{0x03ff, math.Ldexp(1023, -24)}, {0x0400, math.Ldexp(1, -14)}, {0x3555, 0.333251953125},
		{0x7c00, math.Inf(1)}, {0xfc00, math.Inf(-1)},
	} {
		if got := halfToFloat64(tc.h); got != tc.want {
			t.Errorf("half %#04x = %v, want %v", tc.h, got, tc.want)
		}
	}
	if !math.IsNaN(halfToFloat64(0x7e00)) {
		t.Error("half 0x7e00 is not NaN")
	}
}
