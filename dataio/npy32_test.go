package dataio

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// ReadNPY32Ctx reads what ReadNPYCtx reads, rounded to float32, and
// refuses a value float32 cannot hold.
func TestReadNPY32(t *testing.T) {
	x := mat.NewDense(3, 4, []float64{0, 1.5, -2.25, 1e-3, 3.14159265358979, 7, 8, 9, -1e30, 2, 3, 4})
	var b bytes.Buffer
	if err := WriteNPY(&b, x); err != nil {
		t.Fatal(err)
	}
	data, rows, cols, err := ReadNPY32Ctx(context.Background(), bytes.NewReader(b.Bytes()), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if rows != 3 || cols != 4 {
		t.Fatalf("shape %d×%d", rows, cols)
	}
	for i, v := range x.RawMatrix().Data {
		if data[i] != float32(v) {
			t.Errorf("element %d: %v, want %v", i, data[i], float32(v))
		}
	}
	// Fortran order: the column-major 0…5 of a 2×3 array.
	var f bytes.Buffer
	for i := 0; i < 6; i++ {
		binary.Write(&f, binary.LittleEndian, float64(i))
	}
	data, rows, cols, err = ReadNPY32Ctx(context.Background(), bytes.NewReader(npyBytes("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", f.Bytes())), Limits{})
	if err != nil || rows != 2 || cols != 3 {
		t.Fatalf("Fortran order: %d×%d, %v", rows, cols, err)
	}
	for i, want := range []float32{0, 2, 4, 1, 3, 5} {
		if data[i] != want {
			t.Errorf("Fortran order: element %d is %v, want %v", i, data[i], want)
		}
	}
	x.Set(2, 0, 1e300)
	b.Reset()
	if err := WriteNPY(&b, x); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := ReadNPY32Ctx(context.Background(), bytes.NewReader(b.Bytes()), Limits{}); !errors.Is(err, ErrFormat) {
		t.Errorf("1e300 as float32: %v, want ErrFormat", err)
	}
}

// TestNPYShapeAndFile: the shape is read from the header alone (a file
// whose data are truncated still has one, of rows × the product of the
// other axes); ReadNPY32File reads what ReadNPY32Ctx does and prefixes
// errors with the path.
func TestNPYShapeAndFile(t *testing.T) {
	dir := t.TempDir()
	x := mat.NewDense(3, 4, []float64{0, 1.5, -2.25, 1e-3, 3.5, 7, 8, 9, -1e30, 2, 3, 4})
	var b bytes.Buffer
	if err := WriteNPY(&b, x); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "x.npy")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, c, err := NPYShapeFile(context.Background(), path); err != nil || r != 3 || c != 4 {
		t.Fatalf("shape %d×%d, %v", r, c, err)
	}
	data, r, c, err := ReadNPY32File(context.Background(), path, Limits{})
	if err != nil || r != 3 || c != 4 || data[4] != 3.5 || data[8] != -1e30 {
		t.Fatalf("ReadNPY32File: %d×%d %v, %v", r, c, data, err)
	}
	cube := npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (5, 2, 3), }", nil) // no data
	if r, c, err := ReadNPYShapeCtx(context.Background(), bytes.NewReader(cube)); err != nil || r != 5 || c != 6 {
		t.Fatalf("header-only cube: %d×%d, %v", r, c, err)
	}
	bad := filepath.Join(dir, "bad.npy")
	if err := os.WriteFile(bad, []byte("not numpy at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{
		func() error { _, _, err := NPYShapeFile(context.Background(), bad); return err }(),
		func() error { _, _, _, err := ReadNPY32File(context.Background(), bad, Limits{}); return err }(),
	} {
		if !errors.Is(err, ErrFormat) || !strings.HasPrefix(err.Error(), bad) {
			t.Errorf("bad file: %v", err)
		}
	}
	if _, _, err := NPYShapeFile(context.Background(), filepath.Join(dir, "missing.npy")); err == nil {
		t.Error("a missing file has no shape")
	}
}
