package engine_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/manifoldlab/manifold/engine"
)

// TestModelFilesResave checks that each model's one list of fields serves
// both ways: every committed model file (one per method and variant,
// testdata/models), loaded and saved again, gives the same bytes —
// parameters, arrays, report and checksum.
func TestModelFilesResave(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "models", "*.model"))
	if err != nil || len(files) < 16 {
		t.Fatalf("testdata/models: %d files, %v", len(files), err)
	}
	for _, path := range files {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := engine.Load(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var b bytes.Buffer
		if err := m.Save(&b); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !bytes.Equal(b.Bytes(), raw) {
			t.Errorf("%s: saved again, %d bytes differ from the %d of the file", path, b.Len(), len(raw))
		}
	}
}
