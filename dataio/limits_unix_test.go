//go:build unix

package dataio

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadCancelFIFO: a named pipe that no one opens for writing blocks
// the open; one whose writer says nothing blocks the read. Cancellation
// ends both within 100 ms (asserted at 1 s: the machine may be loaded).
func TestReadCancelFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "x.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	for _, writer := range []bool{false, true} {
		done := make(chan struct{})
		if writer {
			// A writer that opens the pipe and writes nothing: the open
			// (non-blocking, read side open) is released by the reader's.
			go func() {
				for {
					w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
					if err == nil {
						<-done
						w.Close()
						return
					}
					select {
					case <-done:
						return
					case <-time.After(time.Millisecond):
					}
				}
			}()
		}
		ctx, cancel := context.WithCancel(context.Background())
		go func() { time.Sleep(100 * time.Millisecond); cancel() }()
		start := time.Now()
		_, err := ReadMatrixFileCtx(ctx, fifo, Limits{})
		d := time.Since(start) - 100*time.Millisecond
		close(done)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("writer %v: %v, want context.Canceled", writer, err)
		}
		if d > time.Second {
			t.Errorf("writer %v: stopped %v after the cancellation", writer, d)
		}
		t.Logf("writer %v: stopped %v after the cancellation", writer, d)
	}
	// A pipe with a writer that has data is read. A fresh pipe: the opens
	// the cancelled reads left behind would race for the first one's data.
	fresh := filepath.Join(dir, "y.csv")
	if err := syscall.Mkfifo(fresh, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		w, err := os.OpenFile(fresh, os.O_WRONLY, 0)
		if err == nil {
			w.WriteString("1,2\n3,4\n")
			w.Close()
		}
	}()
	x, err := ReadMatrixFileCtx(context.Background(), fresh, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if r, c := x.Dims(); r != 2 || c != 2 {
		t.Fatalf("read %d×%d", r, c)
	}
}
