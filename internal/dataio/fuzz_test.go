package dataio

import (
	"bytes"
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
