package engine

import (
	"context"
	"errors"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/sparse"
)

// errAfter is a context whose Err is nil for its first calls and then
// context.Canceled.
type errAfter struct {
	context.Context
	left int
}

func (c *errAfter) Err() error {
	if c.left--; c.left < 0 {
		return context.Canceled
	}
	return nil
}

// The training rows are copied whole, row by row or picked, and a cancel
// is seen after the piece in progress: a copy of a large matrix is never
// one uninterruptible call.
func TestCopyRowsCtx(t *testing.T) {
	const c = 5
	rows := 3*dense.Piece/c + 7 // a little over three pieces
	src := dense.New(rows, c)
	for i := range src.Data {
		src.Data[i] = float64(i + 1)
	}
	got, err := trainRows(context.Background(), src, nil)
	if err != nil || !slices.Equal(got.Data, src.Data) {
		t.Fatalf("whole copy: error %v, equal %v", err, slices.Equal(got.Data, src.Data))
	}
	pick := []int{rows - 1, 0, 7}
	got, err = trainRows(context.Background(), src, pick)
	for i, r := range pick {
		if err != nil || !slices.Equal(got.Data[i*c:(i+1)*c], src.Data[r*c:(r+1)*c]) {
			t.Fatalf("picked rows: error %v, row %d = %v, want row %d", err, i, got.Data[i*c:(i+1)*c], r)
		}
	}
	strided := blas64.General{Rows: rows, Cols: c - 1, Stride: c, Data: src.Data}
	dst := dense.New(rows, c-1)
	dense.CopyRows(dst, strided)
	for i := range rows {
		if !slices.Equal(dst.Data[i*(c-1):(i+1)*(c-1)], src.Data[i*c:i*c+c-1]) {
			t.Fatalf("strided copy: row %d differs", i)
		}
	}

	// Cancelled from the start: the first piece (and the rest of its last
	// row) copied, the rest not.
	for _, pick := range [][]int{nil, make([]int, rows)} {
		for i := range pick {
			pick[i] = i
		}
		dst := dense.New(rows, c)
		err := dense.CopyRowsCtx(&errAfter{Context: context.Background(), left: 0}, dst, src, pick)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("picked %v: error %v, want context.Canceled", pick != nil, err)
		}
		copied := 0
		for copied < len(dst.Data) && dst.Data[copied] != 0 {
			copied++
		}
		if copied < dense.Piece || copied >= dense.Piece+c {
			t.Fatalf("picked %v: %d values copied before the cancel was seen, want one piece of %d", pick != nil, copied, dense.Piece)
		}
	}
}

// trainSamples writes sparse rows out dense exactly, kept rows in their
// order, and stops within a piece of a cancel.
func TestTrainSamplesSparse(t *testing.T) {
	const c = 7
	rows := 2*dense.Piece/c + 5
	src := dense.New(rows, c)
	for i := range src.Data {
		if i%3 != 0 { // a third of the entries zero
			src.Data[i] = float64(i%101) - 50.5
		}
	}
	csr := sparse.FromDense(toDense(src))
	for _, pick := range [][]int{nil, {rows - 1, 0, 4, 4}} {
		want, err := trainRows(context.Background(), src, pick)
		if err != nil {
			t.Fatal(err)
		}
		got, err := trainSamples(context.Background(), samples{csr: csr}, pick)
		if err != nil || got.Rows != want.Rows || !slices.Equal(got.Data, want.Data) {
			t.Fatalf("kept %v: error %v, dense rows differ from the dense copy", pick, err)
		}
	}
	_, err := trainSamples(&errAfter{Context: context.Background(), left: 1}, samples{csr: csr}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled after the first piece: error %v, want context.Canceled", err)
	}
}
