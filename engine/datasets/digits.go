package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
)

// Deform configures DeformDigits. The zero value means the defaults in
// brackets, small enough that a deformed digit stays the same digit.
type Deform struct {
	// Side is the side of the square images, row-major in the rows
	// (0: √columns; 16 for USPS).
	Side int
	// Rotate is the largest rotation, in radians [0.15].
	Rotate float64
	// Scale is the largest relative change of scale along each axis [0.1].
	Scale float64
	// Shear is the largest shear [0.1].
	Shear float64
	// Shift is the largest translation, in pixels [1].
	Shift float64
	// Alpha is the largest elastic displacement, in pixels [1].
	Alpha float64
	// Sigma is the standard deviation, in pixels, of the Gaussian that
	// smooths the elastic displacement field [2].
	Sigma float64
}

func (d Deform) withDefaults(cols int) (Deform, error) {
	if d.Side == 0 {
		d.Side = int(math.Round(math.Sqrt(float64(cols))))
	}
	if d.Side*d.Side != cols || d.Side < 2 {
		return d, fmt.Errorf("datasets: rows of %d values are not %d×%d images", cols, d.Side, d.Side)
	}
	for _, p := range []*float64{&d.Rotate, &d.Scale, &d.Shear, &d.Shift, &d.Alpha, &d.Sigma} {
		if *p < 0 || math.IsNaN(*p) || math.IsInf(*p, 0) {
			return d, fmt.Errorf("datasets: deformation setting %v (need finite ≥ 0)", *p)
		}
	}
	def := func(p *float64, v float64) {
		if *p == 0 {
			*p = v
		}
	}
	def(&d.Rotate, 0.15)
	def(&d.Scale, 0.1)
	def(&d.Shear, 0.1)
	def(&d.Shift, 1)
	def(&d.Alpha, 1)
	def(&d.Sigma, 2)
	return d, nil
}

// DeformDigits returns n images made from the rows of base (images of
// Side×Side pixels, row-major, as the USPS digits of ../shared/data) and
// their labels: image i is row i mod m of base (m rows) under a random
// small affine map (rotation, scale along each axis, shear, translation)
// composed with an elastic distortion (a random displacement field of
// uniform values, smoothed by a Gaussian of standard deviation Sigma and
// scaled to at most Alpha pixels: Simard, Steinkraus and Platt, ICDAR
// 2003, §2), resampled bilinearly with the image's smallest value as the
// background. This is how the infinite-MNIST sets are made (Loosli, Canu
// and Bottou, "Training invariant support vector machines using selective
// sampling", in Large Scale Kernel Machines, MIT Press 2007), with random
// rather than tangent-vector deformations. labels may be nil; otherwise
// label i is labels[i mod m]. Image i depends only on (seed, i) and its
// source row, so any n gives the same first rows; O(n·Side²·Sigma).
func DeformDigits(base mat.Matrix, labels []int, n int, opt Deform, seed uint64) (*mat.Dense, []int, error) {
	m, cols := base.Dims()
	if m == 0 || n < 0 {
		return nil, nil, fmt.Errorf("datasets: %d deformed images of %d base images", n, m)
	}
	if labels != nil && len(labels) != m {
		return nil, nil, fmt.Errorf("datasets: %d labels for %d base images", len(labels), m)
	}
	opt, err := opt.withDefaults(cols)
	if err != nil {
		return nil, nil, err
	}
	src := mat.DenseCopyOf(base)
	sr := src.RawMatrix()
	for _, v := range sr.Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil, fmt.Errorf("datasets: base images hold %v", v)
		}
	}
	var lab []int
	if labels != nil {
		lab = make([]int, n)
		for i := range lab {
			lab[i] = labels[i%m]
		}
	}
	if n == 0 {
		return &mat.Dense{}, lab, nil
	}
	out := mat.NewDense(n, cols, nil)
	or := out.RawMatrix()
	kern := gaussKernel(opt.Sigma)
	backend.ParallelFor(n, 256, func(lo, hi int) {
		side := opt.Side
		dx, dy, tmp := make([]float64, cols), make([]float64, cols), make([]float64, cols)
		for i := lo; i < hi; i++ {
			rng := rand.New(rand.NewPCG(seed, uint64(i)))
			img := sr.Data[(i%m)*sr.Stride : (i%m)*sr.Stride+cols]
			deformOne(or.Data[i*or.Stride:i*or.Stride+cols], img, side, opt, kern, rng, dx, dy, tmp)
		}
	})
	return out, lab, nil
}

// gaussKernel is the normalised Gaussian of standard deviation s on
// [−⌈2s⌉, ⌈2s⌉].
func gaussKernel(s float64) []float64 {
	r := int(math.Ceil(2 * s))
	k := make([]float64, 2*r+1)
	sum := 0.0
	for i := range k {
		x := float64(i - r)
		k[i] = math.Exp(-x * x / (2 * s * s))
		sum += k[i]
	}
	for i := range k {
		k[i] /= sum
	}
	return k
}

// smooth convolves the side×side field f with kern along rows then
// columns (zero outside), using tmp.
func smooth(f, tmp []float64, side int, kern []float64) {
	convolve(tmp, f, side, kern, 1)
	convolve(f, tmp, side, kern, side)
}

// convolve sets dst to the side×side field src convolved with kern along
// rows (stride 1) or columns (stride side), zero outside.
func convolve(dst, src []float64, side int, kern []float64, stride int) {
	r := len(kern) / 2
	for y := 0; y < side; y++ {
		for x := 0; x < side; x++ {
			at := x
			if stride != 1 {
				at = y
			}
			s := 0.0
			for t, w := range kern {
				if p := at + t - r; p >= 0 && p < side {
					s += w * src[y*side+x+(p-at)*stride]
				}
			}
			dst[y*side+x] = s
		}
	}
}

func deformOne(dst, img []float64, side int, o Deform, kern []float64, rng *rand.Rand, dx, dy, tmp []float64) {
	u := func(a float64) float64 { return a * (2*rng.Float64() - 1) }
	th := u(o.Rotate)
	sx, sy := 1+u(o.Scale), 1+u(o.Scale)
	sh := u(o.Shear)
	tx, ty := u(o.Shift), u(o.Shift)
	// Source = A·(target − centre) + centre + t + elastic.
	c, s := math.Cos(th), math.Sin(th)
	a00, a01 := c*sx, -s*sx+sh
	a10, a11 := s*sy, c*sy
	for p := range dx {
		dx[p] = 2*rng.Float64() - 1
		dy[p] = 2*rng.Float64() - 1
	}
	smooth(dx, tmp, side, kern)
	smooth(dy, tmp, side, kern)
	peak := 0.0
	for p := range dx {
		peak = math.Max(peak, math.Max(math.Abs(dx[p]), math.Abs(dy[p])))
	}
	scale := 0.0
	if peak > 0 {
		scale = o.Alpha / peak
	}
	bg := math.Inf(1)
	for _, v := range img {
		bg = math.Min(bg, v)
	}
	at := func(x, y int) float64 {
		if x < 0 || y < 0 || x >= side || y >= side {
			return bg
		}
		return img[y*side+x]
	}
	mid := float64(side-1) / 2
	for y := 0; y < side; y++ {
		for x := 0; x < side; x++ {
			p := y*side + x
			vx, vy := float64(x)-mid, float64(y)-mid
			fx := a00*vx + a01*vy + mid + tx + scale*dx[p]
			fy := a10*vx + a11*vy + mid + ty + scale*dy[p]
			x0, y0 := math.Floor(fx), math.Floor(fy)
			ax, ay := fx-x0, fy-y0
			ix, iy := int(x0), int(y0)
			dst[p] = (1-ay)*((1-ax)*at(ix, iy)+ax*at(ix+1, iy)) + ay*((1-ax)*at(ix, iy+1)+ax*at(ix+1, iy+1))
		}
	}
}
