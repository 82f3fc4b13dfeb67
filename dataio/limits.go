package dataio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// ErrLimit is wrapped by every error about an input larger than a reader's
// Limits allow: a line longer than MaxLine, data that would take more than
// MaxBytes of memory, more than MaxInput bytes of (decompressed) input.
var ErrLimit = errors.New("dataio: input exceeds a limit")

// DefaultMaxLine is the longest line of a text file the readers accept when
// Limits.MaxLine is zero: 64 MiB, a CSV row of about four million numbers.
const DefaultMaxLine = 64 << 20

// inputPerByte is how many bytes of (decompressed) input a reader accepts
// per byte of Limits.MaxBytes when Limits.MaxInput is zero: a number of a
// CSV file takes at most a few dozen characters and 8 bytes once read, so
// 16 bytes of text per byte of budget leaves room for long numbers and
// comments while an endless or decompression-bomb stream stops soon.
const inputPerByte = 16

// Limits bound what a reader holds and reads, so that an untrusted input
// (a decompression bomb, a device such as /dev/zero, an endless pipe) ends
// in an error wrapping ErrLimit instead of exhausting memory. The zero
// value bounds only the line length (DefaultMaxLine).
type Limits struct {
	// MaxBytes, when positive, bounds the memory the data take while they
	// are read: 8 bytes an element of a dense matrix and the storage held
	// while it grows (the old and new slices of a CSV, half again for a
	// .npy), 40 an entry of a sparse one (triplets, then compressed rows),
	// the strings and indices of labels.
	// A reader checks it before it grows its storage: for .npy and
	// MatrixMarket from the header, before reading the data.
	MaxBytes int64
	// MaxLine bounds the bytes of one line of a text file; zero means
	// DefaultMaxLine.
	MaxLine int
	// MaxInput, when positive, bounds the bytes read (after gzip
	// decompression); zero means 16·MaxBytes when MaxBytes is set, no bound
	// otherwise.
	MaxInput int64
	// MaxRatio bounds the ratio of decompressed to compressed bytes of a
	// gzip input once more than RatioGrace bytes are decompressed; zero
	// means DefaultMaxRatio, a negative value no bound. It stops a
	// decompression bomb (deflate reaches about 1030:1) within a fraction
	// of a second, long before the memory budget would.
	MaxRatio float64
}

// DefaultMaxRatio is the decompression ratio past which a gzip input is
// refused when Limits.MaxRatio is zero. Numbers written as text compress
// 3–10:1 and sparse 0/1 tables 20–100:1; 200:1 is past both, while the
// bombs of the reliability tests (15 MB expanding to 10 GB, 680:1; one
// line of 10 GB, about 1000:1) are well above it. A file refused by it can
// be read after decompressing it (gunzip), or with a larger MaxRatio.
const DefaultMaxRatio = 200

// RatioGrace is the decompressed size under which the ratio is not
// checked: small, highly repetitive files (a constant column, a table of
// zeros) may exceed any ratio and cost nothing to read.
const RatioGrace = 16 << 20

func (l Limits) maxRatio() float64 {
	switch {
	case l.MaxRatio > 0:
		return l.MaxRatio
	case l.MaxRatio < 0:
		return 0
	}
	return DefaultMaxRatio
}

func (l Limits) maxLine() int {
	if l.MaxLine > 0 {
		return l.MaxLine
	}
	return DefaultMaxLine
}

func (l Limits) maxInput() int64 {
	switch {
	case l.MaxInput > 0:
		return l.MaxInput
	case l.MaxBytes > 0 && l.MaxBytes <= (1<<62)/inputPerByte:
		return l.MaxBytes * inputPerByte
	}
	return 0
}

// budget returns an error wrapping ErrLimit when need bytes exceed
// MaxBytes, naming line (0: none).
func (l Limits) budget(need int64, line int, what string) error {
	if l.MaxBytes > 0 && (need < 0 || need > l.MaxBytes) {
		return &Error{Kind: ErrLimit, Line: line, Msg: fmt.Sprintf("%s need %s of memory, more than the memory budget of %s", what, fmtBytes(need), fmtBytes(l.MaxBytes))}
	}
	return nil
}

// fmtBytes renders a byte count: "512 B", "3.2 MiB", "28.8 GiB".
func fmtBytes(b int64) string {
	if b < 0 {
		return "more than 8 EiB"
	}
	if b < 1<<10 {
		return fmt.Sprintf("%d B", b)
	}
	v, unit := float64(b)/(1<<10), "KiB"
	for _, u := range []string{"MiB", "GiB", "TiB", "PiB", "EiB"} {
		if v < 1024 {
			break
		}
		v, unit = v/1024, u
	}
	return fmt.Sprintf("%.1f %s", v, unit)
}

// guard is the reader every read goes through: it returns ctx's error once
// ctx is done and an error wrapping ErrLimit after max bytes (max > 0).
type guard struct {
	ctx context.Context
	r   io.Reader
	n   int64
	max int64
	// in counts the compressed bytes under a decompressor; when set, the
	// ratio n/in may not exceed ratio once n passes RatioGrace.
	in    *int64
	ratio float64
}

func (g *guard) Read(p []byte) (int, error) {
	if err := g.ctx.Err(); err != nil {
		return 0, err
	}
	if g.max > 0 && int64(len(p)) > g.max-g.n+1 {
		p = p[:g.max-g.n+1]
	}
	n, err := g.r.Read(p)
	g.n += int64(n)
	if g.max > 0 && g.n > g.max {
		return n, &Error{Kind: ErrLimit, Msg: fmt.Sprintf("the input goes on past %s (the limit; a decompression bomb or an endless stream?)", fmtBytes(g.max))}
	}
	if g.in != nil && g.ratio > 0 && g.n > RatioGrace && float64(g.n) > g.ratio*float64(max(*g.in, 1)) {
		return n, &Error{Kind: ErrLimit, Msg: fmt.Sprintf("the gzip input expands %.0f:1 (%s from %s), past the limit of %.0f:1: a decompression bomb? Decompress it first to read it", float64(g.n)/float64(max(*g.in, 1)), fmtBytes(g.n), fmtBytes(*g.in), g.ratio)}
	}
	if err != nil && err != io.EOF {
		if cerr := g.ctx.Err(); cerr != nil {
			return n, cerr // a read interrupted by cancellation (a deadline set below)
		}
	}
	return n, err
}

// open opens path for reading; ctx interrupts the open and every later
// read. Opening a named pipe blocks until a writer opens it, so the open
// runs in a goroutine: when ctx ends first, a non-blocking open of the pipe
// for writing releases it, and the file it opened is closed. Reads of a
// pipe wait in the runtime's poller, which a past deadline wakes; the
// returned stop undoes that watch and must be called before closing.
func open(ctx context.Context, path string) (f *os.File, stop func() bool, err error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	type result struct {
		f   *os.File
		err error
	}
	done := make(chan result, 1)
	go func() {
		f, err := os.Open(path)
		done <- result{f, err}
	}()
	select {
	case res := <-done:
		if res.err != nil {
			return nil, nil, res.err
		}
		f = res.f
	case <-ctx.Done():
		if fi, err := os.Stat(path); err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
			if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
		}
		go func() {
			if res := <-done; res.f != nil {
				res.f.Close()
			}
		}()
		return nil, nil, ctx.Err()
	}
	stop = context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Now()) })
	return f, stop, nil
}
