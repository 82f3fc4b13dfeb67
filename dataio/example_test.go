package dataio_test

import (
	"bytes"
	"fmt"
	"strings"

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
