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
