// Command ldlorder measures the fill-reducing orderings of sparse.AnalyzeLDL
// (reverse Cuthill–McKee, nested dissection, approximate minimum degree) on
// the matrices the bottom-eigenvector methods factor: the pattern of LLE's
// M = (I − W)ᵀ(I − W) and LTSA's alignment matrix (a clique on every point
// and its k neighbours) and the symmetric k-nearest-neighbour graph of
// Laplacian eigenmaps. For each data set and ordering it prints the
// factor's entries nnz(L), its flam, the time of the ordering and symbolic
// analysis, whether Factor works on dense fronts or row by row, and the
// time of one numeric LDLᵀ of the pattern with diagonally dominant values
// (the factorization the shift-invert solver repeats; the first on fronts
// includes building the supernodes' patterns).
//
// Data: swiss rolls (3-D, exact k-d tree neighbours) and deformed digits
// (engine/datasets.DeformDigits of ../shared/data/usps9298, 256 features,
// NN-descent neighbours). Run from the repository root, alone, under the
// timing lock:
//
//	flock /tmp/manifold-bench.lock go run ./bench/scale/ldlorder -roll 10000,50000 -digits 10000
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/manifoldlab/manifold/bench/internal/repro"
	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/sparse"
	"gonum.org/v1/gonum/mat"
)

const prog = "ldlorder"

func main() {
	rolls := flag.String("roll", "10000,50000", "swiss roll sizes (comma-separated; empty: none)")
	digits := flag.String("digits", "10000", "deformed-digit sizes (comma-separated; empty: none)")
	k := flag.Int("k", 10, "neighbours")
	seed := flag.Uint64("seed", 1, "seed of the data")
	orders := flag.String("orderings", "rcm,nd,amd", "orderings to measure (rcm, nd, amd)")
	write := flag.String("write", "", "folder to write every matrix (.mtx) and ordering (.perm, 0-based new → old) to, for amd_reference.py")
	flag.Parse()
	ctx := context.Background()
	fmt.Printf("Machine: %s.\n\n", repro.Machine())
	fmt.Println("| data | N | matrix | nnz(A) | ordering | nnz(L) | flam | order + analysis (s) | factor | factor (s) |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for _, kind := range []string{"roll", "digits"} {
		list := *rolls
		if kind == "digits" {
			list = *digits
		}
		for _, f := range strings.Split(list, ",") {
			if f = strings.TrimSpace(f); f == "" {
				continue
			}
			n, err := strconv.Atoi(f)
			if err != nil {
				repro.Fatal(prog, err)
			}
			lists, err := knn(ctx, kind, n, *k, *seed)
			if err != nil {
				repro.Fatal(prog, err)
			}
			for _, mk := range []struct {
				name  string
				build func(*neighbors.Result) *sparse.CSR
			}{{"LLE/LTSA (cliques)", cliques}, {"kNN graph (Laplacian)", knnGraph}} {
				a := mk.build(lists)
				tag := fmt.Sprintf("%s-%d-%s", kind, n, strings.Fields(mk.name)[0])
				tag = strings.ReplaceAll(tag, "/", "")
				if *write != "" {
					if err := sparse.WriteMatrixMarketFile(filepath.Join(*write, tag+".mtx"), a, sparse.MMOptions{}); err != nil {
						repro.Fatal(prog, err)
					}
				}
				for _, ord := range orderings(*orders) {
					t0 := time.Now()
					an, err := sparse.AnalyzeLDL(ctx, a, ord)
					if err != nil {
						repro.Fatal(prog, err)
					}
					ta := time.Since(t0).Seconds()
					t0 = time.Now()
					if _, err := an.Factor(ctx, a, -1); err != nil {
						repro.Fatal(prog, err)
					}
					tf := time.Since(t0).Seconds()
					if *write != "" {
						var b strings.Builder
						for _, v := range an.Perm() {
							fmt.Fprintln(&b, v)
						}
						name := filepath.Join(*write, tag+"."+strings.ReplaceAll(ord.String(), " ", "-")+".perm")
						if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
							repro.Fatal(prog, err)
						}
					}
					how := "row by row"
					if an.Multifrontal() {
						how = "fronts"
					}
					fmt.Printf("| %s | %d | %s | %d | %s | %d | %.3g | %.3f | %s | %.3f |\n", kind, n, mk.name, a.NNZ(), ord, an.NNZ(), an.Flam(), ta, how, tf)
				}
			}
		}
	}
}

// orderings parses -orderings.
func orderings(list string) []sparse.Ordering {
	var out []sparse.Ordering
	for _, f := range strings.Split(list, ",") {
		switch strings.TrimSpace(f) {
		case "rcm":
			out = append(out, sparse.OrderRCM)
		case "nd":
			out = append(out, sparse.OrderND)
		case "amd":
			out = append(out, sparse.OrderAMD)
		case "":
		default:
			repro.Fatal(prog, fmt.Errorf("-orderings: unknown ordering %q (rcm, nd, amd)", f))
		}
	}
	return out
}

// knn returns the k nearest neighbours of n points of the given kind.
func knn(ctx context.Context, kind string, n, k int, seed uint64) (*neighbors.Result, error) {
	var x *mat.Dense
	opt := neighbors.Options{}
	if kind == "roll" {
		x, _ = datasets.SwissRoll(n, 0, seed)
		return neighbors.KNN(ctx, x, k, opt)
	}
	base, err := dataio.ReadMatrixFile(filepath.Join(repro.DataDir(), "usps9298", "usps9298_X.npy"))
	if err != nil {
		return nil, err
	}
	l, err := dataio.ReadLabelsFile(filepath.Join(repro.DataDir(), "usps9298", "usps9298_y.txt"))
	if err != nil {
		return nil, err
	}
	x, _, err = datasets.DeformDigits(base, l.Class, n, datasets.Deform{}, seed)
	if err != nil {
		return nil, err
	}
	res, _, err := neighbors.KNNApprox(ctx, x, k, neighbors.ApproxOptions{Seed: seed})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", os.Args[0], err)
	}
	return res, nil
}

// cliques is the pattern of Σᵢ over the cliques {i} ∪ N(i) with values
// making it diagonally dominant: the pattern of LLE's M and LTSA's B.
func cliques(r *neighbors.Result) *sparse.CSR {
	n := r.Len()
	coo := sparse.NewCOO(n, n, 0)
	for i := range n {
		ind, _ := r.Row(i)
		c := append([]int{i}, ind...)
		for _, u := range c {
			for _, v := range c {
				if u == v {
					coo.Add(u, v, float64(len(c)))
				} else {
					coo.Add(u, v, -1/float64(len(c)))
				}
			}
		}
	}
	return coo.ToCSR()
}

// knnGraph is the symmetric k-nearest-neighbour graph as a Laplacian with
// a unit shift (diagonally dominant).
func knnGraph(r *neighbors.Result) *sparse.CSR {
	n := r.Len()
	coo := sparse.NewCOO(n, n, 0)
	for i := range n {
		ind, _ := r.Row(i)
		coo.Add(i, i, 1)
		for _, j := range ind {
			coo.Add(i, j, -1)
			coo.Add(j, i, -1)
			coo.Add(i, i, 1)
			coo.Add(j, j, 1)
		}
	}
	return coo.ToCSR()
}
