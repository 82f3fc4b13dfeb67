//go:build unix

package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/internal/testmode"
)

// runEnv runs the built command in dir with extra environment variables,
// returning its result and how long it ran.
func runEnv(t *testing.T, dir string, env []string, args ...string) (result, time.Duration) {
	t.Helper()
	return runLimited(t, dir, env, "", args...)
}

// runLimited is runEnv under a shell's `ulimit` (ulimit "-d 1000000": a hard
// limit of the data segment in KiB, which holds the Go heap), when ulimit
// is not empty.
func runLimited(t *testing.T, dir string, env []string, ulimit string, args ...string) (result, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, args...)
	if ulimit != "" {
		cmd = exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", "ulimit " + ulimit + ` && exec "$0" "$@"`, binPath}, args...)...)
	}
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if ps := cmd.ProcessState; ps != nil {
		r.cpu = ps.UserTime() + ps.SystemTime()
	}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running manifold %s: %v", strings.Join(args, " "), err)
	}
	return r, time.Since(start)
}

// oneLineExit1 checks a failed run: exit status 1 (never the runtime's 2),
// one line on standard error containing every want, no trace.
func oneLineExit1(t *testing.T, r result, d time.Duration, limit time.Duration, args string, want ...string) {
	t.Helper()
	line := strings.TrimSuffix(r.stderr, "\n")
	switch {
	case r.code != 1:
		t.Errorf("manifold %s: exit %d, want 1 (stderr %.300q)", args, r.code, r.stderr)
	case strings.Contains(line, "\n") || !strings.HasSuffix(r.stderr, "\n"):
		t.Errorf("manifold %s: stderr is not one line: %.300q", args, r.stderr)
	case strings.Contains(r.stderr, "goroutine") || strings.Contains(r.stderr, "fatal error"):
		t.Errorf("manifold %s: runtime trace: %.300q", args, r.stderr)
	}
	for _, w := range want {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("manifold %s: %q does not contain %q", args, line, w)
		}
	}
	if d > limit {
		t.Errorf("manifold %s: took %v, want at most %v", args, d, limit)
	}
}

func gzipOf(t *testing.T, unit string, n int) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	chunk := []byte(strings.Repeat(unit, (1<<16)/len(unit)))
	for w := 0; w < n; w += len(chunk) {
		zw.Write(chunk)
	}
	zw.Close()
	return b.Bytes()
}

// TestMemoryLimits: the cases of issue 19 that ended in "fatal error: out
// of memory" (exit 2), run in a child process whose Go runtime is limited
// to 64 MiB (GOMEMLIMIT, which the default budget honours): each ends with
// exit 1 and one line, within 2 s (asserted at 10 s: the machine is
// shared).
func TestMemoryLimits(t *testing.T) {
	testmode.Skip(t, "a matrix of child processes")
	dir := t.TempDir()
	small := []string{"GOMEMLIMIT=64MiB"}
	// A gzip bomb of short rows: 128 MiB of "1,2,3\n" in about 130 KB.
	putFile(t, filepath.Join(dir, "rows.csv.gz"), string(gzipOf(t, "1,2,3\n", 128<<20)))
	// A gzip bomb of one endless line.
	putFile(t, filepath.Join(dir, "line.csv.gz"), string(gzipOf(t, "1,", 128<<20)))
	// A CSV and a model file that are /dev/zero.
	if _, err := os.Stat("/dev/zero"); err == nil {
		os.Symlink("/dev/zero", filepath.Join(dir, "zero.csv"))
		os.Symlink("/dev/zero", filepath.Join(dir, "zero.model"))
	}
	// 16,000 points: Isomap's N×N geodesics need 2 GB (1 GB in float32, which the command tries next).
	x := mat.NewDense(16000, 3, nil)
	for i := 0; i < 16000; i++ {
		x.Set(i, 0, float64(i%97))
		x.Set(i, 1, float64(i%89))
		x.Set(i, 2, float64(i))
	}
	if err := dataio.WriteMatrixFile(filepath.Join(dir, "big.npy"), x); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"embed", "-method", "pca", "-in", "rows.csv.gz"}, []string{"rows.csv.gz: ", "memory budget"}},
		{[]string{"embed", "-method", "pca", "-in", "rows.csv.gz", "-max-memory", "16MiB"}, []string{"rows.csv.gz: line ", "the rows so far, with the copy made as they grow, need", "more than the memory budget of 16.0 MiB"}},
		{[]string{"embed", "-method", "pca", "-in", "line.csv.gz"}, []string{"line.csv.gz: ", "the gzip input expands", "a decompression bomb?"}},
		{[]string{"embed", "-method", "pca", "-in", "zero.csv"}, []string{"zero.csv: line 1: line longer than 64.0 MiB"}},
		{[]string{"project", "-model", "zero.model", "-in", "big.npy"}, []string{"zero.model: engine: bad model file: not a manifold model file"}},
		{[]string{"embed", "-method", "isomap", "-in", "big.npy", "-quiet"}, []string{"big.npy: ", "memory budget exceeded", "needs about", "cheaper", "(the default budget: the memory available less 15 %; -max-memory sets another)"}},
		{[]string{"embed", "-method", "mds", "-in", "big.npy", "-quiet"}, []string{"big.npy: ", "memory budget exceeded"}},
		{[]string{"embed", "-method", "tdpm", "-in", "big.npy", "-quiet"}, []string{"big.npy: ", "memory budget exceeded"}},
	} {
		if strings.Contains(strings.Join(c.args, " "), "zero.") && runtime.GOOS != "linux" {
			continue
		}
		r, d := runEnv(t, dir, small, c.args...)
		oneLineExit1(t, r, d, 10*time.Second, strings.Join(c.args, " "), c.want...)
	}

	// Under the default budget of the machine (no GOMEMLIMIT), a bomb
	// stops at the decompression ratio, within 2 s of CPU (the wall time
	// grows when other work shares the machine: within 10 s).
	putFile(t, filepath.Join(dir, "rows96.csv.gz"), string(gzipOf(t, "1,2,3\n", 96<<20)))
	r, d := runEnv(t, dir, nil, "embed", "-method", "pca", "-in", "rows96.csv.gz")
	oneLineExit1(t, r, d, 10*time.Second, "embed -method pca -in rows96.csv.gz", "rows96.csv.gz: ", "past the limit of 200:1: a decompression bomb?")
	if r.cpu > 2*time.Second {
		t.Errorf("embed -method pca -in rows96.csv.gz: %v of CPU before the bomb was refused, want at most 2 s", r.cpu)
	}

	// A hard limit of the data segment (ulimit -d, RLIMIT_DATA), no
	// GOMEMLIMIT: the default budget reads it, and the fits that would pass
	// it refuse instead of dying in the runtime.
	if out, err := exec.Command("/bin/sh", "-c", "ulimit -d 1000000 && echo ok").CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Logf("ulimit -d unavailable (%v %q): the rlimit cases are not run", err, out)
		return
	}
	// One BLAS thread and two Go threads: OpenBLAS reserves a buffer and a
	// stack per thread in the data segment, so on a many-core machine its
	// threads alone would pass the limit before main runs.
	few := []string{"OPENBLAS_NUM_THREADS=1", "GOMAXPROCS=2"}
	for _, method := range []string{"isomap", "mds", "tdpm"} {
		args := []string{"embed", "-method", method, "-in", "big.npy", "-quiet"}
		r, d := runLimited(t, dir, few, "-d 1000000", args...) // 977 MiB (an OpenBLAS build needs a few hundred MiB for its threads and their stacks); N×N is 2 GB
		oneLineExit1(t, r, d, 10*time.Second, "(ulimit -d 1000000) "+strings.Join(args, " "), "big.npy: ", "memory budget exceeded")
	}
	// And a fit within the limit still runs.
	r, d = runLimited(t, dir, few, "-d 1000000", "embed", "-method", "pca", "-in", "big.npy", "-out", "pca.csv")
	if r.code != 0 {
		t.Errorf("(ulimit -d 1000000) embed -method pca: exit %d, %q", r.code, r.stderr)
	}
}

// TestInterruptedRead: SIGINT while the input is a named pipe that no one
// writes (the open blocks), or whose writer is silent, stops the command
// with "interrupted", exit 1.
func TestInterruptedRead(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes: %v", err)
	}
	for _, sub := range [][]string{
		{"embed", "-method", "pca", "-in", "pipe.csv"},
		{"project", "-model", "pipe.csv", "-in", "pipe.csv"},
	} {
		cmd := exec.Command(binPath, sub...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond) // the command is blocked in the open
		start := time.Now()
		cmd.Process.Signal(os.Interrupt)
		err := cmd.Wait()
		d := time.Since(start)
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != 1 || !strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("%s: exit %d, stderr %q; want 1 and interrupted", sub, code, stderr.String())
		}
		if d > 2*time.Second {
			t.Errorf("%s: stopped %v after SIGINT", sub, d)
		}
		t.Logf("%s: stopped %v after SIGINT", sub, d)
	}
}

// TestOutputsAllOrNothing: when one output cannot be written, none is
// left behind, and an existing file keeps its content.
func TestOutputsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	testData(t, dir)
	putFile(t, filepath.Join(dir, "old.csv"), "old\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-out", "old.csv", "-model", "nodir/m.model"}, "nodir/m.model: no such file or directory"},
		{[]string{"-out", "old.csv", "-report", "nodir/r.json"}, "nodir/r.json: no such file"},
		{[]string{"-out", "old.csv", "-model", "m.model", "-plot", "nodir/p.png"}, "nodir/p.png: no such file"},
	} {
		args := append([]string{"embed", "-method", "pca", "-in", "roll.csv"}, c.args...)
		mustFail(t, dir, []string{c.want}, args...)
		if b, _ := os.ReadFile(filepath.Join(dir, "old.csv")); string(b) != "old\n" {
			t.Errorf("%s: old.csv now holds %.40q", args, b)
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if n := e.Name(); n == "m.model" || strings.HasPrefix(n, ".manifold-") {
				t.Errorf("%s: left %s behind", args, n)
			}
		}
	}
	// All succeed: every output in place, no temporary file.
	mustSucceed(t, dir, "embed", "-method", "pca", "-in", "roll.csv", "-out", "old.csv", "-model", "m.model", "-report", "r.json")
	for _, n := range []string{"old.csv", "m.model", "r.json"} {
		if fi, err := os.Stat(filepath.Join(dir, n)); err != nil || fi.Size() < 10 {
			t.Errorf("%s: %v", n, err)
		}
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".manifold-") {
			t.Errorf("left %s behind", e.Name())
		}
	}
	// Through a symbolic link: the file it names is replaced, the link kept.
	if err := os.Symlink("old.csv", filepath.Join(dir, "link.csv")); err == nil {
		mustSucceed(t, dir, "embed", "-method", "pca", "-in", "roll.csv", "-out", "link.csv")
		if fi, err := os.Lstat(filepath.Join(dir, "link.csv")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("link.csv is no longer a link: %v", err)
		}
	}
	// project too.
	mustFail(t, dir, []string{"nodir/p.csv: no such file"}, "project", "-model", "m.model", "-in", "roll.csv", "-out", "nodir/p.csv")
	mustSucceed(t, dir, "project", "-model", "m.model", "-in", "roll.csv", "-out", "p.npy")
}

func TestRepeatedFlag(t *testing.T) {
	dir := t.TempDir()
	mustFail(t, dir, []string{"-dim given twice (-dim 3 after -dim 2)"}, "embed", "-method", "pca", "-dim", "2", "-dim", "3")
	mustFail(t, dir, []string{"-quiet given twice (-quiet true after -quiet true)"}, "embed", "-method", "pca", "-quiet", "-quiet")
	mustFail(t, dir, []string{"-model given twice (-model b after -model a)"}, "project", "-model", "a", "-model", "b", "-in", "x.csv")
	// -h still prints the defaults (flag's PrintDefaults reads the values).
	r := mustSucceed(t, dir, "embed", "-h")
	if !strings.Contains(r.stdout, "-dim D") || strings.Contains(r.stdout, "panic") {
		t.Errorf("embed -h: %.400q", r.stdout)
	}
}

// TestProjectFarAway: for every method, points far from the training data
// (up to 1e300) project to finite coordinates with exit 0, or fail with
// exit 1 and one line: never NaN with exit 0.
func TestProjectFarAway(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "a matrix of child processes")
	dir := t.TempDir()
	testData(t, dir)
	var far strings.Builder
	for _, s := range []string{"1e3", "1e20", "-1e40", "1e152", "1e155", "-1e200", "1e300"} {
		far.WriteString(s + ",0,0\n")
		far.WriteString(s + "," + s + "," + s + "\n")
	}
	putFile(t, filepath.Join(dir, "far.csv"), far.String())
	for _, m := range methods {
		model := m.Name + ".model"
		mustSucceed(t, dir, append([]string{"embed", "-method", m.Name, "-in", "roll.csv", "-model", model, "-out", m.Name + ".csv"}, methodArgs(m.Name)...)...)
		// All the rows at once, then the moderate ones alone (which every
		// method can map or refuse without the extreme ones deciding).
		lines := strings.SplitAfter(far.String(), "\n")
		for _, rows := range []string{far.String(), strings.Join(lines[:6], "")} {
			row := strings.ReplaceAll(strings.TrimSpace(rows), "\n", "; ")
			putFile(t, filepath.Join(dir, "some.csv"), rows)
			r := runCmd(t, dir, "project", "-model", model, "-in", "some.csv")
			switch r.code {
			case 0:
				if strings.Contains(strings.ToLower(r.stdout), "nan") || strings.Contains(strings.ToLower(r.stdout), "inf") {
					t.Errorf("%s, %s: exit 0 with %q", m.Name, row, r.stdout)
				}
			case 1:
				if strings.Count(r.stderr, "\n") != 1 || strings.Contains(r.stderr, "goroutine") {
					t.Errorf("%s, %s: stderr %q", m.Name, row, r.stderr)
				}
			default:
				t.Errorf("%s, %s: exit %d, stderr %.200q", m.Name, row, r.code, r.stderr)
			}
		}
	}
}

// TestCraftedModels: model files that pass the checksum but hold values no
// fit produces, or sizes the file cannot hold, are refused by project with
// exit 1 and one line.
func TestCraftedModels(t *testing.T) {
	dir := t.TempDir()
	testData(t, dir)
	mustSucceed(t, dir, "embed", "-method", "isomap", "-in", "roll.csv", "-model", "good.model", "-out", "y.csv")
	good, err := os.ReadFile(filepath.Join(dir, "good.model"))
	if err != nil {
		t.Fatal(err)
	}
	hl := int(binary.LittleEndian.Uint32(good[12:16]))
	reseal := func(b []byte) []byte {
		binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.ChecksumIEEE(b[:len(b)-4]))
		return b
	}
	huge := func(at int, v float64) []byte {
		b := append([]byte(nil), good...)
		binary.LittleEndian.PutUint64(b[16+hl+8*at:], math.Float64bits(v))
		return reseal(b)
	}
	var hdr struct {
		Floats []struct {
			Name       string
			Rows, Cols int
		}
	}
	if err := json.Unmarshal(good[16:16+hl], &hdr); err != nil {
		t.Fatal(err)
	}
	floats, first := 0, -1 // the float arrays come first; first: of an array other than the eigenvalues (any finite one loads)
	for _, a := range hdr.Floats {
		if first < 0 && a.Name != "eigenvalues" {
			first = floats
		}
		floats += a.Rows * a.Cols
	}
	forged := append([]byte(nil), good[:16]...)
	h := strings.Replace(string(good[16:16+hl]), `"rows":`, `"rows":99999999`, 1)
	forged = binary.LittleEndian.AppendUint32(forged[:12], uint32(len(h)))
	forged = append(append(forged, h...), good[16+hl:]...)
	for name, b := range map[string][]byte{
		"first1e308.model": huge(first, 1e308),
		"last1e308.model":  huge(floats-1, -1e308),
		"mid1e200.model":   huge(floats/2, 1e200),
		"forged.model":     reseal(forged),
		"short.model":      good[:len(good)/2],
	} {
		putFile(t, filepath.Join(dir, name), string(b))
		mustFail(t, dir, []string{name + ": engine: bad model file"}, "project", "-model", name, "-in", "roll.csv")
	}
}
