package discriminant

import (
	"context"
	"errors"
	"math"
	"sort"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/internal/dense"
)

// ErrNoVariance is returned by Whiten and CovarianceWhiten when the data
// have no variance (no eigenvalue above the rank rule).
var ErrNoVariance = errors.New("the data have no variance")

// ErrSingular is returned by Solve when S_W (plus the ridge) is not
// positive definite to working accuracy.
var ErrSingular = errors.New("singular within-class scatter")

// NoWithin is the eigenvalue Directions reports for a direction without
// within-class scatter (λ = σ²/(1 − σ²) would be infinite), and 1/NoWithin
// the smallest 1 − σ² taken as within-class scatter.
const NoWithin = 1e8

// Classes maps labels onto 0…c−1 (classes in ascending label order) and
// returns the class of every sample, the labels of the classes and the
// class sizes.
func Classes(labels []int) (y, classes, size []int) {
	classes = append([]int(nil), labels...)
	sort.Ints(classes)
	u := classes[:0]
	for i, v := range classes {
		if i == 0 || v != classes[i-1] {
			u = append(u, v)
		}
	}
	classes = u
	pos := make(map[int]int, len(classes))
	for i, v := range classes {
		pos[v] = i
	}
	y = make([]int, len(labels))
	size = make([]int, len(classes))
	for i, v := range labels {
		y[i] = pos[v]
		size[y[i]]++
	}
	return y, classes, size
}

// Scatter returns, for the centred rows a (n×p) in the classes y of the
// given sizes, the class means (c×p), B = [√N_c·m_c] (p×c, the factor of
// S_B = BBᵀ) and the within-class scatter S_W (p×p, both triangles).
func Scatter(ctx context.Context, a blas64.General, y, size []int) (means, b, sw blas64.General, err error) {
	n, p, c := a.Rows, a.Cols, len(size)
	means, b, sw = dense.New(c, p), dense.New(p, c), dense.New(p, p)
	for i := 0; i < n; i++ {
		row := means.Data[y[i]*p : (y[i]+1)*p]
		for j, v := range a.Data[i*a.Stride : i*a.Stride+p] {
			row[j] += v
		}
	}
	for k := 0; k < c; k++ {
		row := means.Data[k*p : (k+1)*p]
		for j := range row {
			row[j] /= float64(size[k])
		}
	}
	// The rows of a are centred: m = 0, B = [√N_c·m_c].
	for k := 0; k < c; k++ {
		sq := math.Sqrt(float64(size[k]))
		for j := 0; j < p; j++ {
			b.Data[j*c+k] = sq * means.Data[k*p+j]
		}
	}
	w := dense.New(n, p)
	for i := 0; i < n; i++ {
		mrow := means.Data[y[i]*p : (y[i]+1)*p]
		for j, v := range a.Data[i*a.Stride : i*a.Stride+p] {
			w.Data[i*p+j] = v - mrow[j]
		}
	}
	if err := backend.SyrkCtx(ctx, backend.Active(), blas.Trans, 1, w, 0, blas64.Symmetric{N: p, Stride: p, Uplo: blas.Upper, Data: sw.Data}); err != nil {
		return means, b, sw, err
	}
	dense.MirrorUpper(sw)
	return means, b, sw, nil
}

// ScatterFlam is the flam of Scatter, the within- and between-class
// scatter matrices of n samples of d features in c classes: the class
// means (nd), S_W = AᵀA of the n×d class-centred data (Syrk, d²n/2) and
// S_B = BBᵀ of the d×c weighted centred means (d²c/2).
func ScatterFlam(n, d, c int) float64 {
	return float64(n)*float64(d) + flam.Syrk(d, n) + flam.Syrk(d, c)
}

// Whiten returns the whitened principal scores U (n×r, UᵀU = I) of the
// centred n×D a and the map M (D×r) with a·M = U, r the number of
// singular values whose square exceeds 10⁻¹⁰ of the largest (Deng Cai's
// mySVD): from the D×D covariance aᵀa = VΛVᵀ when D ≤ n (M = VΛ^−½,
// U = a·M), else from the n×n Gram matrix aaᵀ = UΛUᵀ (M = aᵀUΛ⁻¹).
func Whiten(ctx context.Context, a blas64.General) (u, m blas64.General, err error) {
	n, d := a.Rows, a.Cols
	impl := backend.Active()
	p := min(n, d)
	sym := blas64.Symmetric{N: p, Stride: p, Uplo: blas.Upper, Data: make([]float64, p*p)}
	tr := blas.NoTrans
	if d <= n {
		tr = blas.Trans
	}
	if err := backend.SyrkCtx(ctx, impl, tr, 1, a, 0, sym); err != nil {
		return blas64.General{}, blas64.General{}, err
	}
	if d <= n {
		mp, err := CovarianceWhiten(ctx, sym)
		if err != nil {
			return blas64.General{}, blas64.General{}, err
		}
		uw := dense.New(n, mp.Cols)
		if err := backend.GemmCtx(ctx, impl, blas.NoTrans, blas.NoTrans, 1, a, mp, 0, uw); err != nil {
			return blas64.General{}, blas64.General{}, err
		}
		return uw, mp, nil
	}
	vals, vecs, err := backend.EigTopCtx(ctx, impl, sym, p)
	if err != nil {
		return blas64.General{}, blas64.General{}, err
	}
	rk := dense.Rank(vals, whitenTolSq)
	if rk == 0 {
		return blas64.General{}, blas64.General{}, ErrNoVariance
	}
	uw := dense.New(n, rk)
	mp := dense.New(d, rk)
	sc := dense.New(n, rk) // UΛ⁻¹
	for i := 0; i < n; i++ {
		for j := 0; j < rk; j++ {
			e := vecs.Data[i*vecs.Stride+j]
			uw.Data[i*rk+j] = e
			sc.Data[i*rk+j] = e / vals[j]
		}
	}
	if err := backend.GemmCtx(ctx, impl, blas.Trans, blas.NoTrans, 1, a, sc, 0, mp); err != nil {
		return blas64.General{}, blas64.General{}, err
	}
	return uw, mp, nil
}

// CovarianceWhiten returns the map M = VΛ^−½ (D×r) of the D×D scatter
// aᵀa = VΛVᵀ (its upper triangle in sym, destroyed), r its rank by the
// rule of Whiten: a·M are the whitened principal scores.
func CovarianceWhiten(ctx context.Context, sym blas64.Symmetric) (blas64.General, error) {
	d := sym.N
	vals, vecs, err := backend.EigTopCtx(ctx, backend.Active(), sym, d)
	if err != nil {
		return blas64.General{}, err
	}
	rk := dense.Rank(vals, whitenTolSq)
	if rk == 0 {
		return blas64.General{}, ErrNoVariance
	}
	mp := dense.New(d, rk)
	for i := 0; i < d; i++ {
		for j := 0; j < rk; j++ {
			mp.Data[i*rk+j] = vecs.Data[i*vecs.Stride+j] / math.Sqrt(vals[j])
		}
	}
	return mp, nil
}

// whitenTolSq: the whitening keeps the eigenvalues (descending) above
// 10⁻¹⁰ of the largest, singular values above 10⁻⁵ of the largest (Deng
// Cai's mySVD rule), by dense.Rank.
const whitenTolSq = 1e-10

// WhitenedMeans returns H_bᵀ = [√N_c·ū_c] (r×c): the class means ū_c of
// the rows of the whitened scores u (n×r, from Whiten) in the classes y of
// the given sizes, each times √N_c — the factor of the between-class
// scatter in the whitened space, which Directions takes.
func WhitenedMeans(u blas64.General, y, size []int) blas64.General {
	n, rk, c := u.Rows, u.Cols, len(size)
	hb := dense.New(rk, c)
	for i := 0; i < n; i++ {
		for j, v := range u.Data[i*u.Stride : i*u.Stride+rk] {
			hb.Data[j*c+y[i]] += v
		}
	}
	for k := 0; k < c; k++ {
		sc := 1 / math.Sqrt(float64(size[k]))
		for j := 0; j < rk; j++ {
			hb.Data[j*c+k] *= sc // √N_c·ū_c = (Σ u)/√N_c
		}
	}
	return hb
}

// Directions finishes the SVD solver from H_bᵀ = [√N_c·ū_c] (r×c, in the
// whitened space; destroyed) and the map back M (D×r) of n samples: the
// thin SVD H_bᵀ = QΣPᵀ, W = M·Q (m = min(dim, r, c) columns), and the
// eigenvalues λ = σ²/(1 − σ²), descending. Each column w is scaled to
// wᵀ(S_W/n)w = 1, or, without within-class scatter along it
// (1 − σ² ≤ 1/NoWithin), to wᵀ(S_T/n)w = 1 with λ reported as NoWithin.
func Directions(ctx context.Context, hb, mp blas64.General, n, dim int) ([]float64, blas64.General, error) {
	impl := backend.Active()
	rk, d := hb.Rows, mp.Rows
	sv, q, _, err := thinSVD(hb)
	if err != nil {
		return nil, blas64.General{}, err
	}
	k := len(sv)
	m := min(dim, k)
	qm := blas64.General{Rows: rk, Cols: m, Stride: q.Stride, Data: q.Data}
	w := dense.New(d, m)
	if err := backend.GemmCtx(ctx, impl, blas.NoTrans, blas.NoTrans, 1, mp, qm, 0, w); err != nil {
		return nil, blas64.General{}, err
	}
	// wᵀS_Tw = 1 now; wᵀS_Ww = 1 − σ².
	vals := make([]float64, m)
	for j := 0; j < m; j++ {
		s2 := min(sv[j]*sv[j], 1)
		sc := math.Sqrt(float64(n))
		if within := 1 - s2; within > 1/NoWithin {
			vals[j] = s2 / within
			sc /= math.Sqrt(within)
		} else {
			vals[j] = NoWithin
		}
		for i := 0; i < d; i++ {
			w.Data[i*m+j] *= sc
		}
	}
	return vals, w, nil
}

// Ridge is reg·tr(S_W)/p for the p×p sw: the relative ridge reg in the
// units of the mean within-class variance.
func Ridge(reg float64, sw blas64.General) float64 {
	t := 0.0
	for i := 0; i < sw.Rows; i++ {
		t += sw.Data[i*sw.Stride+i]
	}
	return reg * t / float64(sw.Rows)
}

// Solve solves S_B·w = λ(S_W + ridge·I)w for S_B = BBᵀ (b p×c) and the
// symmetric p×p sw (full storage, destroyed): S_W + ridge·I = LLᵀ, the
// thin SVD L⁻¹B = UΣVᵀ, λ = σ², w = L⁻ᵀu. It returns the m largest λ
// (descending) and W (p×m) with Wᵀ(S_W + ridge·I)W = I, or ErrSingular
// when a pivot of the Cholesky factor falls below 10⁻⁶ of the largest
// (condition number above 10¹²).
func Solve(sw, b blas64.General, m int, ridge float64) ([]float64, blas64.General, error) {
	p := b.Rows
	impl := backend.Active()
	for i := 0; i < p; i++ {
		sw.Data[i*sw.Stride+i] += ridge
	}
	l := blas64.Symmetric{N: p, Stride: sw.Stride, Uplo: blas.Lower, Data: sw.Data}
	if err := impl.Potrf(l); err != nil {
		if errors.Is(err, backend.ErrNotPositiveDefinite) {
			return nil, blas64.General{}, ErrSingular
		}
		return nil, blas64.General{}, err
	}
	lo, hi := math.Inf(1), 0.0
	for i := 0; i < p; i++ {
		v := math.Abs(sw.Data[i*sw.Stride+i])
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if !(lo > 1e-6*hi) {
		return nil, blas64.General{}, ErrSingular
	}
	tri := blas64.Triangular{N: p, Stride: sw.Stride, Uplo: blas.Lower, Diag: blas.NonUnit, Data: sw.Data}
	cm := dense.Copy(b)
	blas64.Trsm(blas.Left, blas.NoTrans, 1, tri, cm) // L⁻¹B
	sv, uu, _, err := thinSVD(cm)
	if err != nil {
		return nil, blas64.General{}, err
	}
	m = min(m, len(sv))
	w := dense.New(p, m)
	vals := make([]float64, m)
	for j := 0; j < m; j++ {
		vals[j] = sv[j] * sv[j]
		for i := 0; i < p; i++ {
			w.Data[i*m+j] = uu.Data[i*uu.Stride+j]
		}
	}
	blas64.Trsm(blas.Left, blas.Trans, 1, tri, w) // L⁻ᵀU
	return vals, w, nil
}

// SolveFlam is the flam of Solve for S_W d×d, B d×c and m vectors kept:
// the factor of S_W (Potrf, d³/6), C = L⁻¹B (d²c), the thin SVD of C
// (flam.SVD(d, c)) and w = L⁻ᵀu (d²m).
func SolveFlam(d, c, m int) float64 {
	fd := float64(d)
	return flam.Potrf(d) + fd*fd*float64(c) + flam.SVD(d, c) + fd*fd*float64(m)
}

// Pooled scales W (compact: Stride = Cols) from Solve on the scatter of n
// samples by √n, from WᵀS_WW = I to Wᵀ(S_W/n)W = I: in the projection the
// classes' pooled within-class covariance is the identity (S_W plus the
// ridge, when Solve had one).
func Pooled(w blas64.General, n int) {
	sc := math.Sqrt(float64(n))
	for i := range w.Data {
		w.Data[i] *= sc
	}
}

// thinSVD is the thin SVD a = U·diag(σ)·Vᵀ by the active backend's Gesdd
// (a is overwritten): σ descending, U a.Rows×k and Vᵀ k×a.Cols with
// k = min(a.Rows, a.Cols).
func thinSVD(a blas64.General) (sv []float64, u, vt blas64.General, err error) {
	k := min(a.Rows, a.Cols)
	sv, u, vt = make([]float64, k), dense.New(a.Rows, k), dense.New(k, a.Cols)
	return sv, u, vt, backend.Active().Gesdd(a, sv, u, vt)
}
