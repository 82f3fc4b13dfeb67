package dataio

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The readers must never panic and never return a matrix together with an
// error. Seeds: every fixture and the inputs of the table tests.

func FuzzReadNPY(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.npy")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ReadNPY(bytes.NewReader(b))
		if (m == nil) == (err == nil) {
			t.Fatalf("matrix %v with error %v", m, err)
		}
	})
}

func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{"1,2\n3,4\n", "x,y\n1,2\n", "# c\n1\n", "1,2\n3\n", "\"1\", 2e3\r\n", "\xef\xbb\xbfa\n1\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ReadCSV(bytes.NewReader(b))
		if (m == nil) == (err == nil) {
			t.Fatalf("matrix %v with error %v", m, err)
		}
	})
}

func FuzzReadLabels(f *testing.F) {
	for _, s := range []string{"1\n2\n", "a\nb\n\n", "1\n\n2\n", " x \r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ReadLabels(bytes.NewReader(b))
		if (l == nil) == (err == nil) {
			t.Fatalf("labels %v with error %v", l, err)
		}
		if l != nil {
			for _, c := range l.Class {
				if c < 0 || c >= len(l.Names) {
					t.Fatalf("class %d of %d names", c, len(l.Names))
				}
			}
		}
	})
}

func FuzzReadMatrixMarket(f *testing.F) {
	for _, s := range []string{
		"%%MatrixMarket matrix coordinate real general\n% a comment\n3 4 3\n1 1 1.5\n2 3 -2\n3 4 1e3\n",
		"%%MatrixMarket matrix coordinate integer symmetric\n3 3 2\n1 1 4\n3 1 -1\n",
		"%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n2 1\n",
		"%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 0.5\n",
		"%%MatrixMarket matrix array real general\n2 2\n1\n0\n-1\n2\n",
		"%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n",
		"%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.5\n",
		"%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n",
		"%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
		"%%MatrixMarket matrix coordinate real general\n99999999999 1 0\n",
		"%%MatrixMarket matrix array real general\n0 99999999999\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ReadMatrixMarket(bytes.NewReader(b))
		if (m == nil) == (err == nil) {
			t.Fatalf("matrix %v with error %v", m, err)
		}
		if err != nil {
			if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrEmpty) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("error of no dataio kind: %v", err)
			}
			return
		}
		r, c := m.Dims()
		if r < 1 || c < 1 {
			t.Fatalf("%d×%d matrix without an error", r, c)
		}
	})
}
