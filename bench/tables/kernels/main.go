// Command kernels prints the backend kernel table: kernel, sizes, predicted
// flam, seconds, GFLAM/s and the percentage of the measured machine peak
// (the best Gemm rate of the same backend in the same run; for the
// memory-bound kernels, GB/s and the percentage of the measured stream
// bandwidth), followed by the target ratios.
//
//	go run ./bench/tables/kernels                      # pure-Go backend
//	go run -tags openblas ./bench/tables/kernels       # both backends
//	go run ./bench/tables/kernels -quick               # small sizes, seconds
//	go run ./bench/tables/kernels -reference           # also gonum's full mat.EigenSym at n=2000 (~1 min)
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/bench"
)

var (
	quick     = flag.Bool("quick", false, "small sizes (a smoke test, not a measurement)")
	reference = flag.Bool("reference", false, "also time gonum's full mat.EigenSym at n=2000, the reference for the Syevr target")
	reps      = flag.Int("reps", 3, "repetitions of the fast kernels; the best time is reported")
)

type row struct {
	impl, kernel, sizes string
	flam, bytes, sec    float64
}

func main() {
	flag.Parse()
	sz := func(full, small int) int {
		if *quick {
			return small
		}
		return full
	}
	fmt.Printf("backend info: %s\n", backend.Info())
	fmt.Printf("machine: %d CPUs, GOMAXPROCS %d, %s/%s, %s\n", runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version())
	fmt.Printf("date: %s\n\n", time.Now().Format("2006-01-02 15:04"))

	stream := bench.StreamBandwidth(sz(10000, 1000))
	var rows []row
	peak := map[string]float64{}
	for _, impl := range backend.Impls() {
		name := impl.Name()
		add := func(kernel, sizes string, fl, by, sec float64) {
			rows = append(rows, row{name, kernel, sizes, fl, by, sec})
		}
		for _, n := range []int{sz(2000, 200), sz(4000, 400)} {
			if name == "purego" && n == sz(4000, 400) && !*quick {
				continue // 10 s a call in pure Go; n = 2000 is its peak already
			}
			rate := bench.GemmRate(impl, n, *reps)
			add("Gemm", fmt.Sprintf("n=%d", n), flam.Gemm(n, n, n), 0, flam.Gemm(n, n, n)/rate)
			peak[name] = max(peak[name], rate)
		}
		{
			n := sz(2000, 200)
			a := bench.RandGeneral(1, n, n)
			c := blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: make([]float64, n*n)}
			t := best(*reps, func() { impl.Syrk(blas.NoTrans, 1, a, 0, c) })
			add("Syrk", fmt.Sprintf("n=k=%d", n), flam.Syrk(n, n), 0, t)
			s := bench.RandSym(2, n)
			b, d := bench.RandGeneral(3, n, n), bench.RandGeneral(4, n, n)
			t = best(*reps, func() { impl.Symm(blas.Left, 1, s, b, 0, d) })
			add("Symm", fmt.Sprintf("n=%d", n), flam.Symm(n, n), 0, t)
		}
		{
			n := sz(4000, 400)
			a := bench.RandGeneral(1, n, n)
			x := blas64.Vector{N: n, Inc: 1, Data: bench.RandGeneral(2, 1, n).Data}
			y := blas64.Vector{N: n, Inc: 1, Data: make([]float64, n)}
			t := best(5*(*reps), func() { impl.Gemv(blas.NoTrans, 1, a, x, 0, y) })
			add("Gemv", fmt.Sprintf("n=%d", n), flam.Gemv(n, n), 8*float64(n)*float64(n), t)
			s := bench.RandSym(3, n)
			t = best(5*(*reps), func() { impl.Symv(1, s, x, 0, y) })
			add("Symv", fmt.Sprintf("n=%d", n), flam.Symv(n), 8*float64(n)*float64(n), t)
		}
		{
			n, dim := sz(5000, 500), 784
			x := bench.RandGeneral(1, n, dim)
			d := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
			t := best(*reps, func() { must(backend.SqDistCtx(context.Background(), impl, d, x, x, nil, nil)) })
			add("SqDist self", fmt.Sprintf("%d×%d", n, dim), flam.Gemm(n, n, dim), 0, t)
			y := bench.RandGeneral(2, n, dim)
			t = best(*reps, func() { must(backend.SqDistCtx(context.Background(), impl, d, x, y, nil, nil)) })
			add("SqDist cross", fmt.Sprintf("%d×%d vs %d", n, dim, n), flam.Gemm(n, n, dim), 0, t)
			t = best(*reps, func() { impl.Gemm(blas.NoTrans, blas.Trans, -2, x, y, 0, d) })
			add("Gemm (XYᵀ)", fmt.Sprintf("%d×%d vs %d", n, dim, n), flam.Gemm(n, n, dim), 0, t)
		}
		for _, n := range []int{sz(2000, 200), sz(3000, 300)} {
			src := bench.RandSym(1, n)
			a := blas64.Symmetric{N: n, Stride: n, Uplo: blas.Lower, Data: make([]float64, n*n)}
			w := make([]float64, 10)
			z := blas64.General{Rows: n, Cols: 10, Stride: 10, Data: make([]float64, 10*n)}
			t := best(1, func() { copy(a.Data, src.Data); must(impl.Syevr(a, n-10, n, w, z)) })
			add("Syevr top 10", fmt.Sprintf("n=%d", n), flam.Syevr(n, 10), 0, t)
			if name == "purego" && n > sz(1000, 300) {
				continue // gonum's Dsyev: 57 s at n = 2000
			}
			wa := make([]float64, n)
			t = best(1, func() { copy(a.Data, src.Data); must(impl.Syevd(a, wa, true)) })
			add("Syevd all", fmt.Sprintf("n=%d", n), flam.Syevd(n, true), 0, t)
		}
		{
			m, n := sz(2000, 200), sz(500, 50)
			src := bench.RandGeneral(1, m, n)
			a := bench.RandGeneral(1, m, n)
			s := make([]float64, n)
			u := blas64.General{Rows: m, Cols: n, Stride: n, Data: make([]float64, m*n)}
			vt := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
			t := best(1, func() { copy(a.Data, src.Data); must(impl.Gesdd(a, s, u, vt)) })
			add("Gesdd thin", fmt.Sprintf("%d×%d", m, n), flam.SVD(m, n), 0, t)
			nn := sz(2000, 200)
			spd := bench.SPD(2, nn)
			cp := bench.SPD(2, nn)
			t = best(*reps, func() { copy(cp.Data, spd.Data); must(impl.Potrf(cp)) })
			add("Potrf", fmt.Sprintf("n=%d", nn), flam.Potrf(nn), 0, t)
		}
	}
	{
		n := sz(10000, 1000)
		s := bench.RandGeneral(1, n, n)
		means := backend.RowMeans(s)
		t := best(*reps, func() { _ = backend.DoubleCenterCtx(context.Background(), s, means) })
		rows = append(rows, row{"go", "DoubleCenter", fmt.Sprintf("N=%d", n), flam.DoubleCenter(n), flam.BytesDoubleCenter(n, 8), t})
	}

	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "backend\tkernel\tsizes\tflam\tseconds\tGFLAM/s\t% peak\tGB/s\t% stream\t")
	for _, r := range rows {
		rate := r.flam / r.sec / 1e9
		pk := peak[r.impl]
		if r.impl == "go" {
			pk = peak[backend.Active().Name()]
		}
		gbs, pst := "", ""
		if r.bytes > 0 {
			gbs = fmt.Sprintf("%.1f", r.bytes/r.sec/1e9)
			pst = fmt.Sprintf("%.0f", 100*r.bytes/r.sec/stream)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.3g\t%.4f\t%.2f\t%.0f\t%s\t%s\t\n", r.impl, r.kernel, r.sizes, r.flam, r.sec, rate, 100*rate*1e9/pk, gbs, pst)
	}
	tw.Flush()
	fmt.Printf("\npeak (best Gemm of the run): ")
	for _, impl := range backend.Impls() {
		fmt.Printf("%s %.1f GFLAM/s  ", impl.Name(), peak[impl.Name()]/1e9)
	}
	fmt.Printf("\nstream (parallel copy, read+write): %.1f GB/s\n", stream/1e9)

	fmt.Println("\ntargets:")
	get := func(impl, kernel, sizes string) float64 {
		for _, r := range rows {
			if r.impl == impl && r.kernel == kernel && (sizes == "" || r.sizes == sizes) {
				return r.flam / r.sec
			}
		}
		return 0
	}
	for _, impl := range backend.Impls() {
		nm := impl.Name()
		g2 := get(nm, "Gemm", fmt.Sprintf("n=%d", sz(2000, 200)))
		g4 := get(nm, "Gemm", fmt.Sprintf("n=%d", sz(4000, 400)))
		if g4 > 0 {
			fmt.Printf("  %s Gemm n=2000 / n=4000 rate: %.0f %% (target ≥ 85 %% for openblas)\n", nm, 100*g2/g4)
		}
		gx := get(nm, "Gemm (XYᵀ)", "")
		fmt.Printf("  %s SqDist self / Gemm rate: %.0f %%, cross / Gemm: %.0f %% (targets: openblas ≥ 70 %%, purego ≥ 60 %%)\n",
			nm, 100*get(nm, "SqDist self", "")/gx, 100*get(nm, "SqDist cross", "")/gx)
	}
	for _, r := range rows {
		if r.kernel == "DoubleCenter" {
			fmt.Printf("  DoubleCenter %s: %.0f %% of stream bandwidth (target ≥ 50 %%)\n", r.sizes, 100*r.bytes/r.sec/stream)
		}
	}
	if *reference {
		n := 2000
		src := bench.RandSym(1, n)
		s := mat.NewSymDense(n, src.Data)
		var es mat.EigenSym
		t0 := time.Now()
		if !es.Factorize(s, true) {
			fmt.Println("  mat.EigenSym failed")
		}
		ref := time.Since(t0).Seconds()
		for _, r := range rows {
			if r.impl == "purego" && r.kernel == "Syevr top 10" && r.sizes == "n=2000" {
				fmt.Printf("  gonum mat.EigenSym (all, n=2000): %.1f s; pure-Go Syevr top 10: %.2f s → %.1f× (target ≥ 10×)\n", ref, r.sec, ref/r.sec)
			}
		}
	}
	for _, r := range rows {
		if r.impl == "openblas" && r.kernel == "Syevr top 10" && r.sizes == fmt.Sprintf("n=%d", sz(3000, 300)) {
			for _, f := range rows {
				if f.impl == "openblas" && f.kernel == "Syevd all" && f.sizes == r.sizes {
					fmt.Printf("  openblas Syevd all / Syevr top 10 at %s: %.1f× (target ≥ 1.5×)\n", r.sizes, f.sec/r.sec)
				}
			}
		}
	}
	if !strings.Contains(backend.Info().Backend, "openblas") {
		fmt.Println("  (build with -tags openblas for the OpenBLAS rows)")
	}
}

// best is bench.Best.
func best(reps int, f func()) float64 { return bench.Best(reps, f) }

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "kernels:", err)
		os.Exit(1)
	}
}
