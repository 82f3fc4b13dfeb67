// Command blasload times backend calls three ways — on one thread
// (backend.SetThreads(1)), by the backend's size rule (the default: only
// large calls threaded), and always threaded (backend.OpenBLASDirect) —
// idle and beside busy processes: the measurement behind the OpenBLAS
// backend's rule (backend/openblas.go, "Threaded calls").
//
//	go run -tags openblas ./bench/tables/blasload                    # Syevr and Gemm, 0 and 3 busy processes
//	go run -tags openblas ./bench/tables/blasload -op syevr -n 1000,2000 -busy 3 -secs 20
//
// Each row: the calls made in -secs seconds and the median, 90th
// percentile and largest time of one call. The busy processes are this
// command re-run with -hog (a loop on one core), started before the
// timing and killed after it.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
)

var (
	ops   = flag.String("op", "syevr,gemm", "calls to time: syevr (top 2 eigenpairs of n×n), gemm (n×n by n×n)")
	sizes = flag.String("n", "300,1000", "orders n")
	busy  = flag.String("busy", "0,3", "numbers of busy processes beside the timing")
	secs  = flag.Float64("secs", 10, "seconds per row")
	hog   = flag.Bool("hog", false, "run a busy loop until killed (used by the command itself)")
)

func main() {
	flag.Parse()
	if *hog {
		runtime.GOMAXPROCS(1)
		x := 0
		for {
			x++
		}
	}
	fmt.Println(backend.Info())
	if backend.Active().Name() != "openblas" {
		fmt.Println("(pure-Go build: the C library's threads play no part; run with -tags openblas)")
	}
	fmt.Printf("%-6s %6s %5s %-9s %7s %10s %10s %10s\n", "op", "n", "busy", "threads", "calls", "median ms", "p90 ms", "max ms")
	for _, b := range ints(*busy) {
		hogs := startHogs(b)
		for _, op := range strings.Split(*ops, ",") {
			for _, n := range ints(*sizes) {
				for _, m := range []struct {
					name    string
					threads int
					impl    backend.Impl
				}{{"one", 1, backend.Active()}, {"rule", 0, backend.Active()}, {"always", 0, alwaysThreaded}} {
					backend.SetThreads(m.threads)
					d := timeCalls(m.impl, op, n, time.Duration(*secs*float64(time.Second)))
					q := func(p float64) float64 { return d[int(p*float64(len(d)-1))] }
					fmt.Printf("%-6s %6d %5d %-9s %7d %10.2f %10.2f %10.1f\n", op, n, b, m.name, len(d), q(0.5), q(0.9), d[len(d)-1])
				}
			}
		}
		for _, h := range hogs {
			h.Process.Kill()
			h.Wait()
		}
	}
	backend.SetThreads(0)
}

func ints(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			fmt.Fprintf(os.Stderr, "blasload: %q is not a number\n", f)
			os.Exit(2)
		}
		out = append(out, v)
	}
	return out
}

func startHogs(k int) []*exec.Cmd {
	var hogs []*exec.Cmd
	for range k {
		c := exec.Command(os.Args[0], "-hog")
		if err := c.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "blasload:", err)
			os.Exit(1)
		}
		hogs = append(hogs, c)
	}
	time.Sleep(200 * time.Millisecond)
	return hogs
}

// timeCalls returns the sorted times of one call, in ms, over the period.
func timeCalls(impl backend.Impl, op string, n int, period time.Duration) []float64 {
	r := rand.New(rand.NewPCG(1, 2))
	a := make([]float64, n*n)
	for i := range a {
		a[i] = r.Float64()
	}
	b, c := make([]float64, n*n), make([]float64, n*n)
	gen := func(d []float64) blas64.General { return blas64.General{Rows: n, Cols: n, Stride: n, Data: d} }
	var d []float64
	for end := time.Now().Add(period); time.Now().Before(end) || len(d) == 0; {
		copy(b, a)
		t0 := time.Now()
		switch op {
		case "gemm":
			impl.Gemm(blas.NoTrans, blas.NoTrans, 1, gen(a), gen(b), 0, gen(c))
		case "syevr":
			if _, _, err := backend.EigTopCtx(context.Background(), impl, blas64.Symmetric{N: n, Stride: n, Data: b, Uplo: blas.Upper}, 2); err != nil {
				fmt.Fprintln(os.Stderr, "blasload:", err)
				os.Exit(1)
			}
		default:
			fmt.Fprintf(os.Stderr, "blasload: unknown op %q\n", op)
			os.Exit(2)
		}
		d = append(d, time.Since(t0).Seconds()*1e3)
	}
	slices.Sort(d)
	return d
}
