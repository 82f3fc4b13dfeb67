package testtmp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// In a child process (this test binary again), Main runs a function that
// writes a file into os.TempDir and exits 3; the parent sees the code, the
// directory named by the child under the parent's TMPDIR, and nothing of
// it left.
func TestMainRemovesItsDirectory(t *testing.T) {
	if os.Getenv("TESTTMP_CHILD") == "1" {
		Main(func() int {
			dir := os.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "beamloopbackworker-1"), nil, 0o600); err != nil {
				return 4
			}
			os.Stdout.WriteString(dir + "\n")
			return 3
		})
		return
	}
	parent := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestMainRemovesItsDirectory$")
	cmd.Env = append(os.Environ(), "TESTTMP_CHILD=1", "TMPDIR="+parent)
	out, err := cmd.Output()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 3 {
		t.Fatalf("child: %v (want exit code 3), output %q", err, out)
	}
	dir := strings.TrimSpace(strings.Split(string(out), "\n")[0])
	if filepath.Dir(dir) != parent || !strings.HasPrefix(filepath.Base(dir), "manifold-beam-test-") {
		t.Fatalf("the child's TMPDIR was %q, want manifold-beam-test-* under %s", dir, parent)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("%s is still there (%v)", dir, err)
	}
}
