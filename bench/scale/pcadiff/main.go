// Command pcadiff compares two PCA model files, for instance the Beam
// fit of sharded rows (manifold-beam fit -method pca) and the in-process
// fit of the same rows (manifold embed -method pca -model): the largest
// principal angle between their component subspaces (degrees, from the
// singular values of C₁ᵀC₂), the largest relative difference of their
// explained variances, and the largest difference of their means
// relative to the means' largest magnitude.
//
//	go run ./bench/scale/pcadiff a.bin b.bin
package main

import (
	"fmt"
	"math"
	"os"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: pcadiff A.bin B.bin")
		os.Exit(2)
	}
	a, err := load(os.Args[1])
	if err == nil {
		var b *engine.PCAModel
		if b, err = load(os.Args[2]); err == nil {
			err = compare(a, b)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pcadiff:", err)
		os.Exit(1)
	}
}

func load(path string) (*engine.PCAModel, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := engine.Load(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p, ok := m.(*engine.PCAModel)
	if !ok {
		return nil, fmt.Errorf("%s: a %T, not a PCA model", path, m)
	}
	return p, nil
}

func compare(a, b *engine.PCAModel) error {
	ca, cb := a.Components(), b.Components()
	ra, da := ca.Dims()
	rb, db := cb.Dims()
	if ra != rb || da != db {
		return fmt.Errorf("components %d×%d and %d×%d", ra, da, rb, db)
	}
	// Components are stored one a row or one a column; orient both as D×d.
	if ra < da {
		ca, cb = mat.DenseCopyOf(ca.T()), mat.DenseCopyOf(cb.T())
	}
	var m mat.Dense
	m.Mul(ca.T(), cb)
	var svd mat.SVD
	if !svd.Factorize(&m, mat.SVDNone) {
		return fmt.Errorf("SVD of C₁ᵀC₂ failed")
	}
	sv := svd.Values(nil)
	angle := math.Acos(math.Min(1, sv[len(sv)-1])) * 180 / math.Pi
	// acos loses precision near 1: the sine form for small angles.
	var proj mat.Dense
	proj.Mul(ca, &m) // C₁ (C₁ᵀ C₂)
	proj.Sub(&proj, cb)
	sinMax := mat.Norm(&proj, 2)
	va, vb := a.ExplainedVariance(), b.ExplainedVariance()
	dv := 0.0
	for i := range va {
		dv = math.Max(dv, math.Abs(va[i]-vb[i])/math.Abs(va[i]))
	}
	ma, mb := a.Mean(), b.Mean()
	dm, big := 0.0, 0.0
	for i := range ma {
		dm = math.Max(dm, math.Abs(ma[i]-mb[i]))
		big = math.Max(big, math.Abs(ma[i]))
	}
	fmt.Printf("components: %d, features: %d\n", min(ra, da), max(ra, da))
	fmt.Printf("largest principal angle: %.3g° (acos), %.3g° (from ‖C₁C₁ᵀC₂ − C₂‖₂)\n", angle, math.Asin(math.Min(1, sinMax))*180/math.Pi)
	fmt.Printf("explained variances: largest relative difference %.3g (first %.6g and %.6g)\n", dv, va[0], vb[0])
	fmt.Printf("means: largest difference %.3g of the largest magnitude %.4g (relative %.3g)\n", dm, big, dm/big)
	return nil
}
