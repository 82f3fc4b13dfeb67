package repro

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// UpdateSection replaces its own section and keeps everything else.
func TestUpdateSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "R.md")
	if err := UpdateSection(path, "a", "first A"); err != nil {
		t.Fatal(err)
	}
	other := "\n## Someone else's section\n\nkept as is\n"
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, append(b, other...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := UpdateSection(path, "b", "B"); err != nil {
		t.Fatal(err)
	}
	if err := UpdateSection(path, "a", "second A\nline 2"); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	s := string(b)
	for _, want := range []string{"<!-- begin a -->\nsecond A\nline 2\n<!-- end a -->", "kept as is", "<!-- begin b -->\nB\n<!-- end b -->", "# Results"} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in\n%s", want, s)
		}
	}
	if strings.Contains(s, "first A") || strings.Index(s, "begin a") > strings.Index(s, "Someone else") {
		t.Errorf("section a not replaced in place:\n%s", s)
	}
	if err := os.WriteFile(path, []byte("<!-- begin a -->\nno end\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := UpdateSection(path, "a", "x"); err == nil {
		t.Error("unmatched markers: no error")
	}
}
