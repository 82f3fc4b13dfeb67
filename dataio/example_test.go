package dataio_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/dataio"
)

func ExampleReadCSV() {
	in := "x,y,z\n1,2,3\n4,5,6\n"
	m, err := dataio.ReadCSV(strings.NewReader(in))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(mat.Formatted(m))

	_, err = dataio.ReadCSV(strings.NewReader("1,2,3\n4,five,6\n"))
	fmt.Println(err)
	// Output:
	// ⎡1  2  3⎤
	// ⎣4  5  6⎦
	// line 2, column 2: "five" is not a number
}

func ExampleWriteNPY() {
	var b bytes.Buffer
	if err := dataio.WriteNPY(&b, mat.NewDense(2, 2, []float64{1, 2, 3, 4})); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(b.Len(), "bytes")
	m, err := dataio.ReadNPY(&b)
	fmt.Println(mat.Formatted(m), err)
	// Output:
	// 160 bytes
	// ⎡1  2⎤
	// ⎣3  4⎦ <nil>
}

func ExampleReadLabels() {
	l, err := dataio.ReadLabels(strings.NewReader("setosa\nvirginica\nsetosa\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(l.Names, l.Class)
	// Output:
	// [setosa virginica] [0 1 0]
}

// Reading untrusted input within a memory budget, cancellable: an endless
// stream of rows stops once the matrix would pass the budget.
func ExampleReadCSVCtx() {
	endless := io.MultiReader(strings.NewReader("a,b\n"), repeat("1,2\n"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := dataio.ReadCSVCtx(ctx, endless, dataio.Limits{MaxBytes: 1 << 20})
	fmt.Println(errors.Is(err, dataio.ErrLimit))
	fmt.Println(err)

	m, err := dataio.ReadCSVCtx(ctx, strings.NewReader("1,2\n3,4\n"), dataio.Limits{MaxBytes: 1 << 20})
	fmt.Println(mat.Formatted(m), err)
	// Output:
	// true
	// line 32770: the rows so far, with the copy made as they grow, need 1.0 MiB of memory, more than the memory budget of 1.0 MiB
	// ⎡1  2⎤
	// ⎣3  4⎦ <nil>
}

// repeat is an endless reader of s.
func repeat(s string) io.Reader { return &repeater{s: s} }

type repeater struct {
	s   string
	off int
}

func (r *repeater) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = r.s[r.off%len(r.s)]
		r.off++
	}
	return len(p), nil
}
