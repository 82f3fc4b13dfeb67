package dataio

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

// zeros is an endless stream of zero bytes, as /dev/zero.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// rows is an endless stream of "1,2,3\n".
type rows struct{ off int }

func (r *rows) Read(p []byte) (int, error) {
	const line = "1,2,3\n"
	for i := range p {
		p[i] = line[r.off%len(line)]
		r.off++
	}
	return len(p), nil
}

func wantLimit(t *testing.T, err error, msg string) {
	t.Helper()
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), msg) {
		t.Fatalf("error %v, want ErrLimit containing %q", err, msg)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("error spans lines: %q", err)
	}
}

// gzipBomb returns the gzip of n bytes of text made by repeating unit.
func gzipBomb(t *testing.T, unit string, n int) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	chunk := []byte(strings.Repeat(unit, (1<<16)/len(unit)))
	for w := 0; w < n; w += len(chunk) {
		zw.Write(chunk)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestLimitsLineLength(t *testing.T) {
	// /dev/zero as a CSV file: one endless line.
	_, err := ReadCSVCtx(context.Background(), zeros{}, Limits{MaxLine: 1 << 20})
	wantLimit(t, err, "line 1: line longer than 1.0 MiB (the limit)")
	_, err = ReadLabelsCtx(context.Background(), zeros{}, Limits{MaxLine: 1 << 20})
	wantLimit(t, err, "line longer than 1.0 MiB")
	_, err = ReadMatrixMarketCtx(context.Background(), io.MultiReader(strings.NewReader("%%MatrixMarket matrix coordinate real general\n"), zeros{}), Limits{MaxLine: 1 << 20})
	wantLimit(t, err, "line 2: line longer than 1.0 MiB")
	// A line at the limit is read.
	line := strings.Repeat("1,", 1<<10) + "1\n"
	if _, err := ReadCSVCtx(context.Background(), strings.NewReader(line), Limits{MaxLine: len(line) - 1}); err != nil {
		t.Fatal(err)
	}
	_, err = ReadCSVCtx(context.Background(), strings.NewReader(line), Limits{MaxLine: len(line) - 2})
	wantLimit(t, err, "line 1: line longer")
}

func TestLimitsMemoryBudget(t *testing.T) {
	// An endless stream of short rows stops when the matrix would pass the
	// budget; the storage never grows past it.
	var m runtimeMem
	m.read()
	before := m.total
	_, err := ReadCSVCtx(context.Background(), &rows{}, Limits{MaxBytes: 8 << 20})
	wantLimit(t, err, "of memory, more than the memory budget of 8.0 MiB")
	m.read()
	if got := m.total - before; got > 24<<20 {
		t.Errorf("allocated %d bytes for a budget of 8 MiB", got)
	}
	// The same data within budget read whole.
	x, err := ReadCSVCtx(context.Background(), io.LimitReader(&rows{}, 6*1000), Limits{MaxBytes: 8 * 3000})
	if err != nil {
		t.Fatal(err)
	}
	if r, c := x.Dims(); r != 1000 || c != 3 || x.At(999, 2) != 3 {
		t.Fatalf("read %d×%d", r, c)
	}
	_, err = ReadCSVCtx(context.Background(), io.LimitReader(&rows{}, 6*1000), Limits{MaxBytes: 8*3000 - 1})
	wantLimit(t, err, "line 1000: the rows so far, with the copy made as they grow, need")

	// .npy: the header's shape is refused before any data is read.
	var npy bytes.Buffer
	if err := WriteNPY(&npy, mat.NewDense(100, 10, nil)); err != nil {
		t.Fatal(err)
	}
	_, err = ReadNPYCtx(context.Background(), bytes.NewReader(npy.Bytes()), Limits{MaxBytes: 11999})
	wantLimit(t, err, "npy: shape (100, 10) and its copies need 11.7 KiB of memory")
	if _, err := ReadNPYCtx(context.Background(), bytes.NewReader(npy.Bytes()), Limits{MaxBytes: 12000}); err != nil {
		t.Fatal(err)
	}
	hdr := "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000, 1000), }"
	bomb := append([]byte("\x93NUMPY\x01\x00"), byte(len(hdr)+1), 0)
	bomb = append(append(bomb, hdr...), '\n')
	_, err = ReadNPYCtx(context.Background(), io.MultiReader(bytes.NewReader(bomb), zeros{}), Limits{MaxBytes: 1 << 30})
	wantLimit(t, err, "10.9 TiB of memory, more than the memory budget of 1.0 GiB")

	// MatrixMarket: the size line's entries, before any is read.
	mm := "%%MatrixMarket matrix coordinate real symmetric\n% c\n1000 1000 100000\n1 1 1\n"
	_, err = ReadMatrixMarketCtx(context.Background(), strings.NewReader(mm), Limits{MaxBytes: 1 << 20})
	wantLimit(t, err, "the entries the MatrixMarket size line declares need 7.6 MiB")

	// Labels.
	_, err = ReadLabelsCtx(context.Background(), io.LimitReader(&rows{}, 6e6), Limits{MaxBytes: 1 << 20})
	wantLimit(t, err, ": the labels so far need")
}

func TestLimitsDecompressionBomb(t *testing.T) {
	skipBombUnderRace(t)
	// 20 MiB of comment lines in about 20 KiB of gzip: no row is held, the
	// input limit stops it. Without it (and without the ratio bound) the
	// whole stream is read.
	z := gzipBomb(t, "# nothing to see here\n", 20<<20)
	_, err := ReadCSVCtx(context.Background(), bytes.NewReader(z), Limits{MaxInput: 8 << 20})
	wantLimit(t, err, "the input goes on past 8.0 MiB (the limit")
	_, err = ReadCSVCtx(context.Background(), bytes.NewReader(z), Limits{MaxBytes: 1 << 20}) // 16 × budget
	wantLimit(t, err, "the input goes on past 16.0 MiB")
	if _, err = ReadCSVCtx(context.Background(), bytes.NewReader(z), Limits{MaxRatio: -1}); !errors.Is(err, ErrEmpty) {
		t.Fatalf("without limits: %v, want ErrEmpty", err)
	}
	// Rows: the memory budget stops it first.
	z = gzipBomb(t, "1,2,3,4\n", 16<<20)
	_, err = ReadCSVCtx(context.Background(), bytes.NewReader(z), Limits{MaxBytes: 4 << 20})
	wantLimit(t, err, "more than the memory budget of 4.0 MiB")
	// A MatrixMarket bomb too (sparse reports reader errors untyped).
	z = gzipBomb(t, "%%MatrixMarket matrix coordinate real general\n"+strings.Repeat("% c\n", 1<<12), 8<<20)
	_, err = ReadMatrixMarketCtx(context.Background(), bytes.NewReader(z), Limits{MaxInput: 4 << 20})
	wantLimit(t, err, "the input goes on past 4.0 MiB")
}

// A gzip stream that expands past DefaultMaxRatio is refused once
// RatioGrace bytes are out, with no Limits set at all (the command's
// default budget is the machine's memory, far too large to stop a bomb
// soon); MaxRatio < 0 lifts the bound, a larger one moves it.
func TestLimitsDecompressionRatio(t *testing.T) {
	skipBombUnderRace(t)
	z := gzipBomb(t, "# a comment line that repeats\n", RatioGrace+(16<<20)) // about 1000:1
	t0 := time.Now()
	_, err := ReadCSVCtx(context.Background(), bytes.NewReader(z), Limits{})
	wantLimit(t, err, "past the limit of 200:1: a decompression bomb?")
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("the bomb took %v to refuse", d)
	}
	if _, err = ReadCSVCtx(context.Background(), bytes.NewReader(z), Limits{MaxRatio: -1}); !errors.Is(err, ErrEmpty) {
		t.Fatalf("MaxRatio -1: %v, want ErrEmpty (the whole stream read)", err)
	}
	if _, err = ReadCSVCtx(context.Background(), bytes.NewReader(z), Limits{MaxRatio: 5000}); !errors.Is(err, ErrEmpty) {
		t.Fatalf("MaxRatio 5000: %v, want ErrEmpty", err)
	}
	// The same stream stopped short of RatioGrace is read: small
	// repetitive files pass whatever their ratio.
	z = gzipBomb(t, "# a comment line that repeats\n", RatioGrace/2)
	z2 := gzipBomb(t, "1,2,3,4\n", 1<<20)
	if _, err = ReadCSVCtx(context.Background(), bytes.NewReader(z), Limits{}); !errors.Is(err, ErrEmpty) {
		t.Fatalf("below the grace: %v, want ErrEmpty", err)
	}
	m, err := ReadCSVCtx(context.Background(), bytes.NewReader(z2), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if r, c := m.Dims(); r != 1<<17 || c != 4 {
		t.Fatalf("read %d×%d, want %d×4", r, c, 1<<17)
	}
}

func TestReadCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, read := range map[string]func() error{
		"csv":    func() error { _, err := ReadCSVCtx(ctx, &rows{}, Limits{}); return err },
		"npy":    func() error { _, err := ReadNPYCtx(ctx, zeros{}, Limits{}); return err },
		"mtx":    func() error { _, err := ReadMatrixMarketCtx(ctx, zeros{}, Limits{}); return err },
		"labels": func() error { _, err := ReadLabelsCtx(ctx, &rows{}, Limits{}); return err },
	} {
		if err := read(); !errors.Is(err, context.Canceled) || errors.Is(err, ErrFormat) || errors.Is(err, ErrLimit) {
			t.Errorf("%s: %v, want only context.Canceled", name, err)
		}
	}
	// An endless stream without limits stops when ctx ends mid-read.
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := ReadLabelsCtx(ctx, &rows{}, Limits{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("stopped %v after the start, deadline 50 ms", d)
	}
}

// skipBombUnderRace skips a gzip-bomb test under the race detector: it
// reads from memory, with no goroutine to race, and takes 13 s there.
func skipBombUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("reads a gzip stream from memory: no goroutine to race (13 s under -race); the other runs have it")
	}
}
