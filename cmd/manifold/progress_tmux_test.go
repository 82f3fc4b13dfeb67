//go:build unix

package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/internal/testmode"
)

// barWithETA matches a drawn bar with a fraction and an estimate of the
// time left, e.g. "isomap geodesics [=====>      ]  41% 1.2s ETA 1.7s".
var barWithETA = regexp.MustCompile(`(\w+)\s+\[[=> ]{30}\]\s+(\d+)% \S+ ETA \d`)

// In a real terminal (tmux, read back with capture-pane) the progress bar
// of a fit shows, for the stages that take long, a fraction and an ETA
// that moves: Isomap of 7000 points spends seconds in its neighbour search,
// geodesics and eigensolve.
func TestProgressInTerminal(t *testing.T) {
	testmode.Skip(t, "a fit of several seconds in a terminal")
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed: the progress bar is tested through its renderer only")
	}
	dir := t.TempDir()
	if err := dataio.WriteMatrixFile(filepath.Join(dir, "roll.npy"), rollRows(7000, 3)); err != nil {
		t.Fatal(err)
	}
	session := fmt.Sprintf("manifold-test-%d", time.Now().UnixNano())
	script := fmt.Sprintf("cd %q && %q embed -method isomap -in roll.npy -out y.csv; echo EXIT=$?; sleep 30", dir, binPath)
	if out, err := exec.Command(tmux, "new-session", "-d", "-s", session, "-x", "160", "-y", "12", script).CombinedOutput(); err != nil {
		t.Skipf("tmux cannot start a session here: %v %s", err, out)
	}
	defer exec.Command(tmux, "kill-session", "-t", session).Run()
	seen := map[string][]int{} // stage: the percentages seen
	deadline := time.Now().Add(90 * time.Second)
	var screen string
	for time.Now().Before(deadline) {
		out, err := exec.Command(tmux, "capture-pane", "-p", "-t", session).Output()
		if err != nil {
			t.Fatalf("capture-pane: %v", err)
		}
		screen = string(out)
		for _, m := range barWithETA.FindAllStringSubmatch(screen, -1) {
			var pct int
			fmt.Sscan(m[2], &pct)
			if s := seen[m[1]]; len(s) == 0 || s[len(s)-1] != pct {
				seen[m[1]] = append(s, pct)
			}
		}
		if strings.Contains(screen, "EXIT=") {
			break
		}
		time.Sleep(40 * time.Millisecond)
	}
	if !strings.Contains(screen, "EXIT=0") {
		t.Fatalf("the fit did not finish well in 90 s; screen:\n%s", screen)
	}
	t.Logf("percentages seen by stage: %v", seen)
	moving := 0
	for _, pcts := range seen {
		if len(pcts) >= 2 {
			moving++
		}
	}
	if moving == 0 {
		t.Errorf("no stage showed a bar with a fraction moving and an ETA; seen %v, last screen:\n%s", seen, screen)
	}
	// The bar is cleared at the end: the last screen holds no bar.
	if barWithETA.MatchString(screen) {
		t.Errorf("a bar is left on the screen after the fit:\n%s", screen)
	}
}
