package bottom_test

import (
	"context"
	"fmt"
	"math"

	"github.com/manifoldlab/manifold/bottom"
	"github.com/manifoldlab/manifold/sparse"
)

// The bottom of a path graph's Laplacian on the complement of the constant
// vector: its eigenvalues are 2 − 2cos(jπ/n), j = 1, 2, …, certified by
// inertia.
func ExampleCertified() {
	const n = 100
	c := sparse.NewCOO(n, n, 3*n)
	for i := 0; i+1 < n; i++ {
		c.Add(i, i+1, -1)
		c.Add(i+1, i, -1)
		c.Add(i, i, 1)
		c.Add(i+1, i+1, 1)
	}
	u := make([]float64, n)
	for i := range u {
		u[i] = 1 / math.Sqrt(n)
	}
	res, _, err := bottom.Certified(context.Background(), c.ToCSR(), u, 3, bottom.Options{Seed: 1})
	if err != nil {
		panic(err)
	}
	for j, v := range res.Values {
		fmt.Printf("%.10f %.10f\n", v, 2-2*math.Cos(float64(j+1)*math.Pi/n))
	}
	fmt.Println("certified:", res.Certified, "nullity:", res.Nullity)
	// Output:
	// 0.0009868793 0.0009868793
	// 0.0039465431 0.0039465431
	// 0.0088760708 0.0088760708
	// certified: true nullity: 1
}
