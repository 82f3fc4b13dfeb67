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
// parameters, arrays, report and checksum. A file of an approximate model
// written before the index's tree was kept gains the tree when saved
// again; that file then saves to the same bytes.
func TestModelFilesResave(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "models", "*.model"))
	if err != nil || len(files) < 16 {
		t.Fatalf("testdata/models: %d files, %v", len(files), err)
	}
	resave := func(path string, raw []byte) []byte {
		m, err := engine.Load(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var b bytes.Buffer
		if err := m.Save(&b); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return b.Bytes()
	}
	tree := []byte(`"neighbor_tree_child"`)
	grew := 0
	for _, path := range files {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got := resave(path, raw)
		if !bytes.Contains(raw, tree) && bytes.Contains(got, tree) {
			grew++
			raw = got
			got = resave(path, got)
		}
		if !bytes.Equal(got, raw) {
			t.Errorf("%s: saved again, %d bytes differ from the %d of the file", path, len(got), len(raw))
		}
	}
	if grew != 4 { // isomap-approx, lle-approx, lle-approx-lists, ltsa-approx-lists, laplacian-approx-lists less lle-approx (no lists)
		t.Errorf("%d files gained the index's tree, want 4", grew)
	}
}
