package dataio

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/sparse"
)

// ReadMatrixMarket reads a sparse matrix from a MatrixMarket file (plain or
// gzip) as a *sparse.CSR; see sparse.ReadMatrixMarket for the variants
// read. Errors about the content wrap ErrFormat (and sparse.ErrMatrixMarket)
// and name the line. It is ReadMatrixMarketCtx with no context and the zero
// Limits.
func ReadMatrixMarket(r io.Reader) (mat.Matrix, error) {
	return ReadMatrixMarketCtx(context.Background(), r, Limits{})
}

// ReadMatrixMarketCtx is ReadMatrixMarket within lim, stopping with ctx's
// error once ctx is done. The size line is checked against lim.MaxBytes
// (40 bytes an entry, twice for a symmetric matrix) before any entry is
// read.
func ReadMatrixMarketCtx(ctx context.Context, r io.Reader, lim Limits) (mat.Matrix, error) {
	br, closeZ, err := source(ctx, r, lim)
	if err != nil {
		return nil, err
	}
	defer closeZ()
	lc := &lineCap{r: br, max: lim.maxLine()}
	pre := bufio.NewReaderSize(lc, 1<<20)
	head, _ := pre.Peek(1 << 20)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := lim.budget(mmBytes(head), 0, "the entries the MatrixMarket size line declares"); err != nil {
		return nil, err
	}
	a, err := sparse.ReadMatrixMarket(pre)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if lc.err != nil { // a limit or a decompressor error, which sparse reports untyped
			return nil, lc.err
		}
		if errors.Is(err, sparse.ErrMatrixMarket) {
			return nil, &mmError{err}
		}
		return nil, err
	}
	if rows, cols := a.Dims(); rows == 0 || cols == 0 {
		return nil, emptyErr("MatrixMarket matrix is %d×%d", rows, cols)
	}
	return a, nil
}

// mmError is a MatrixMarket error that is also ErrFormat.
type mmError struct{ err error }

func (e *mmError) Error() string   { return e.err.Error() }
func (e *mmError) Unwrap() []error { return []error{e.err, ErrFormat} }

// mmBytes estimates the memory of the matrix whose header starts head: 40
// bytes an entry of a coordinate matrix (twice when symmetric), 8 an element
// of an array; 0 when the size line is not in head (the reader then finds
// the error, or the input limit stops it).
func mmBytes(head []byte) int64 {
	lines := bytes.Split(head, []byte{'\n'})
	if len(lines) < 2 {
		return 0
	}
	banner := strings.Fields(strings.ToLower(string(lines[0])))
	for _, l := range lines[1 : len(lines)-1] { // the last may be cut
		t := bytes.TrimSpace(l)
		if len(t) == 0 || t[0] == '%' {
			continue
		}
		f := strings.Fields(string(t))
		var n []int64
		for _, s := range f {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil || v < 0 {
				return 0
			}
			n = append(n, v)
		}
		switch {
		case len(banner) >= 3 && banner[2] == "array" && len(n) == 2:
			if n[1] != 0 && n[0] > math.MaxInt64/8/n[1] {
				return -1
			}
			return 8 * n[0] * n[1]
		case len(n) == 3:
			per := int64(40)
			if len(banner) >= 5 && banner[4] != "general" {
				per = 80
			}
			if n[2] > math.MaxInt64/per {
				return -1
			}
			return per * n[2]
		}
		return 0
	}
	return 0
}

// lineCap passes bytes through and fails with an error wrapping ErrLimit
// once a line runs past max bytes.
type lineCap struct {
	r   io.Reader
	max int
	cur int
	num int
	err error // the first error other than io.EOF
}

func (c *lineCap) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for _, b := range p[:n] {
		if b == '\n' {
			c.cur = 0
			c.num++
			continue
		}
		c.cur++
		if c.cur > c.max {
			c.err = &Error{Kind: ErrLimit, Line: c.num + 1, Msg: fmt.Sprintf("line longer than %s (the limit)", fmtBytes(int64(c.max)))}
			return n, c.err
		}
	}
	if err != nil && err != io.EOF && c.err == nil {
		c.err = err
	}
	return n, err
}
