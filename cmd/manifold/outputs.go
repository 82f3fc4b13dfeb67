package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// outputs writes a command's output files all or nothing: each is written
// to a temporary file beside its destination (same directory, so the
// rename cannot cross file systems; same extension, so the writer picks the
// same format), and renamed over the destination only when every output
// has been written (commit). abort removes the temporary files; a failed
// run leaves the destinations as they were.
//
// A destination that exists and is not a regular file (/dev/null, a named
// pipe, a terminal) cannot be replaced by a rename: it is written in place.
type outputs struct {
	temps []tempOut
}

type tempOut struct{ tmp, dest string }

// write calls fn with the path to write dest's content to and returns fn's
// error, naming dest where it names the temporary file.
func (o *outputs) write(dest string, fn func(path string) error) error {
	if fi, err := os.Stat(dest); err == nil && !fi.Mode().IsRegular() {
		return fn(dest)
	}
	target := dest // a symbolic link's file is replaced, not the link
	if t, err := filepath.EvalSymlinks(dest); err == nil {
		target = t
	}
	var r [6]byte
	rand.Read(r[:])
	dir, base := filepath.Split(target)
	tmp := filepath.Join(dir, ".manifold-"+hex.EncodeToString(r[:])+"-"+base)
	o.temps = append(o.temps, tempOut{tmp, target})
	if err := fn(tmp); err != nil {
		return &renamed{err: err, from: tmp, to: dest}
	}
	return nil
}

// commit renames every temporary file to its destination.
func (o *outputs) commit() error {
	for i, t := range o.temps {
		if err := os.Rename(t.tmp, t.dest); err != nil {
			o.temps = o.temps[i:]
			o.abort()
			return fileErr(t.dest, err) // the target: a link's file
		}
	}
	o.temps = nil
	return nil
}

// abort removes the temporary files not yet committed.
func (o *outputs) abort() {
	for _, t := range o.temps {
		os.Remove(t.tmp)
	}
	o.temps = nil
}

// renamed is an error about a temporary file, told as about its
// destination; errors.Is and As see the original.
type renamed struct {
	err      error
	from, to string
}

func (e *renamed) Error() string { return strings.ReplaceAll(e.err.Error(), e.from, e.to) }
func (e *renamed) Unwrap() error { return e.err }

// checkOutput refuses an embedding or projection holding NaN or Inf: the
// engine returns finite values or an error, so this is a last guard that
// keeps a non-number out of every output with exit status 0.
func checkOutput(what string, y interface {
	Dims() (int, int)
	At(int, int) float64
}) error {
	n, d := y.Dims()
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			if v := y.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%s: row %d, coordinate %d is %v, not a finite number (a bug: please report it); nothing written", what, i+1, j+1, v)
			}
		}
	}
	return nil
}
