package neighbors

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
)

// keys32 and sides take rows four at a time: a key or margin must not
// depend on which other rows share its group or where it sits in it
// (lists of 1 to 9 rows, the short last group repeating its last row), a
// key must be symmetric to the bit, and both must equal the float64
// formulas to float32 accuracy (keys of a row with itself included). 784 features (no tail past the lanes) and
// 781 (a tail of 1).
func TestKeysAndSidesByGroups(t *testing.T) {
	for _, d := range []int{784, 781} {
		for _, metric := range []Metric{Euclidean, Cosine} {
			n := 12
			rng := rand.New(rand.NewPCG(7, uint64(d)))
			g := blas64.General{Rows: n, Cols: d, Stride: d, Data: make([]float64, n*d)}
			for i := range g.Data {
				g.Data[i] = rng.NormFloat64() + 0.5
			}
			v, err := newDense32(context.Background(), g, metric)
			if err != nil {
				t.Fatal(err)
			}
			single := func(i, j int) float32 {
				var k [1]float32
				v.keys32(i, []int32{int32(j)}, k[:])
				return k[0]
			}
			for m := 1; m <= 9; m++ {
				js := make([]int32, m)
				for p := range js {
					js[p] = int32((3*p + m) % n)
				}
				keys := make([]float32, m)
				for i := 0; i < n; i++ {
					v.keys32(i, js, keys)
					for p, j := range js {
						if alone := single(i, int(j)); keys[p] != alone {
							t.Fatalf("d=%d %v: key(%d, %d) in a group of %d is %v, alone %v", d, metric, i, j, m, keys[p], alone)
						}
						if back := single(int(j), i); keys[p] != back {
							t.Fatalf("d=%d %v: key(%d, %d) = %v but key(%d, %d) = %v", d, metric, i, j, keys[p], j, i, back)
						}
						// The cancellation of ‖x‖² + ‖y‖² − 2x·y: about 1e-7 of
						// the norms in absolute error (the package doc).
						scale := 1.0
						if metric == Euclidean {
							scale += float64(v.sq[i] + v.sq[j])
						}
						if want := refKey(v, i, int(j)); math.Abs(float64(keys[p])-want) > 1e-6*scale {
							t.Fatalf("d=%d %v: key(%d, %d) = %v, float64 formula %v", d, metric, i, j, keys[p], want)
						}
					}
				}
			}
			var hp hyperplane
			v.plane(&hp, 0, 1)
			all := make([]int32, n)
			for i := range all {
				all[i] = int32(i)
			}
			ref := make([]float32, n)
			v.sides(&hp, all, ref)
			for i := range all {
				if want := refSide(v, &hp, i); math.Abs(float64(ref[i])-want) > 1e-4*(1+math.Abs(want)) {
					t.Fatalf("d=%d %v: margin of row %d %v, float64 formula %v", d, metric, i, ref[i], want)
				}
			}
			for m := 1; m <= 9; m++ {
				out := make([]float32, m)
				v.sides(&hp, all[n-m:], out)
				for p := range out {
					if out[p] != ref[n-m+p] {
						t.Fatalf("d=%d %v: margin of row %d in a group of %d is %v, %v among all", d, metric, n-m+p, m, out[p], ref[n-m+p])
					}
				}
			}
		}
	}
}

// refKey is the key of rows i and j of v in float64.
func refKey(v *dense32, i, j int) float64 {
	a, b := v.row(i), v.row(j)
	var dot, sq float64
	for c := range a {
		dot += float64(a[c]) * float64(b[c])
		e := float64(a[c]) - float64(b[c])
		sq += e * e
	}
	if v.metric == Cosine {
		return max(0, 1-dot)
	}
	return sq
}

// refSide is row i's margin against hp in float64.
func refSide(v *dense32, hp *hyperplane, i int) float64 {
	s := float64(hp.off)
	for c, x := range v.row(i) {
		s += float64(hp.normal[c]) * float64(x)
	}
	return s
}
