package backend

import "math"

// Level-1 vector kernels in Go (a cgo call would cost more than the
// arithmetic): the one place the iterative solvers take them from. The
// sums use four accumulators, combined in a fixed order, so results do not
// depend on the machine or GOMAXPROCS.

// Dot returns x·y (len(y) ≥ len(x)).
func Dot(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
		s2 += x[i+2] * y[i+2]
		s3 += x[i+3] * y[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// Axpy sets y += alpha·x (len(y) ≥ len(x)).
func Axpy(alpha float64, x, y []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += alpha * v
	}
}

// Scal sets x *= alpha.
func Scal(alpha float64, x []float64) {
	for i := range x {
		x[i] *= alpha
	}
}

// Nrm2 returns ‖x‖₂: the plain sum of squares when it is safely in range,
// otherwise the scaled sum of squares of LAPACK's DNRM2, which neither
// overflows nor underflows.
func Nrm2(x []float64) float64 {
	ss := Dot(x, x)
	if ss > 1e-280 && ss < 1e280 {
		return math.Sqrt(ss)
	}
	scale, q := 0.0, 1.0
	for _, v := range x {
		if v == 0 {
			continue
		}
		av := math.Abs(v)
		if scale < av {
			q = 1 + q*(scale/av)*(scale/av)
			scale = av
		} else {
			q += (av / scale) * (av / scale)
		}
	}
	return scale * math.Sqrt(q)
}
