package dataio

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestFormats(t *testing.T) {
	for path, want := range map[string]Format{
		"a.csv": CSV, "dir.x/A.CSV.GZ": CSV, "a.npy": NPY, "a.mtx": MatrixMarket, "a.Mtx.gz": MatrixMarket,
	} {
		if got, err := InputFormat(path); err != nil || got != want {
			t.Errorf("InputFormat(%q) = %v, %v; want %v", path, got, err, want)
		}
	}
	for path, msg := range map[string]string{
		"a.txt": `".txt"`, "a.npy.gz": `".npy.gz"`, "dir.csv/data": `"no extension"`,
	} {
		_, err := InputFormat(path)
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), msg) {
			t.Errorf("InputFormat(%q): error %v, want ErrUnsupported naming %s", path, err, msg)
		}
	}
	for path, want := range map[string]Format{"a.csv": CSV, "a.NPY": NPY} {
		if got, err := OutputFormat(path); err != nil || got != want {
			t.Errorf("OutputFormat(%q) = %v, %v; want %v", path, got, err, want)
		}
	}
	for _, path := range []string{"a.csv.gz", "a.mtx", "a.png"} {
		if _, err := OutputFormat(path); !errors.Is(err, ErrUnsupported) {
			t.Errorf("OutputFormat(%q): error %v, want ErrUnsupported", path, err)
		}
	}
}

func TestFiles(t *testing.T) {
	dir := t.TempDir()
	m := mat.NewDense(2, 2, []float64{1, 2, 3, 4.5})
	for _, name := range []string{"m.csv", "m.npy"} {
		path := filepath.Join(dir, name)
		if err := WriteMatrixFile(path, m); err != nil {
			t.Fatal(err)
		}
		got, err := ReadMatrixFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(got, m) {
			t.Errorf("%s: read back %v", name, mat.Formatted(got))
		}
	}
	gz := filepath.Join(dir, "m.csv.gz")
	os.WriteFile(gz, gzipped(t, "1,2\n3,4.5\n"), 0o644)
	if got, err := ReadMatrixFile(gz); err != nil || !mat.Equal(got, m) {
		t.Errorf("m.csv.gz: %v, %v", got, err)
	}

	missing := filepath.Join(dir, "missing.csv")
	_, err := ReadMatrixFile(missing)
	if !errors.Is(err, fs.ErrNotExist) || err.Error() != missing+": no such file or directory" {
		t.Errorf("missing file: %q", err)
	}
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("1,2\nx,3\n"), 0o644)
	_, err = ReadMatrixFile(bad)
	if !errors.Is(err, ErrFormat) || err.Error() != bad+`: line 2, column 1: "x" is not a number` {
		t.Errorf("bad file: %q", err)
	}
	if _, err := ReadMatrixFile(dir + "/x.mtx"); !errors.Is(err, ErrUnsupported) && !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("mtx: %v", err)
	}
	if err := WriteMatrixFile(filepath.Join(dir, "no/such/dir/m.csv"), m); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("write into a missing directory: %v", err)
	}
	labels := filepath.Join(dir, "labels.txt")
	os.WriteFile(labels, []byte("a\nb\n"), 0o644)
	if l, err := ReadLabelsFile(labels); err != nil || len(l.Class) != 2 {
		t.Errorf("labels: %v, %v", l, err)
	}
	if _, err := ReadLabelsFile(dir); err == nil || !strings.HasPrefix(err.Error(), dir+": ") {
		t.Errorf("labels from a directory: %v", err)
	}
}
