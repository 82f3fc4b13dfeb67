package metrics

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/cluster"
	"github.com/manifoldlab/manifold/sparse"
)

// ErrInput is wrapped by every error about the caller's data: labelings of
// different lengths, empty input, NaN or Inf, a neighbourhood size out of
// range.
var ErrInput = errors.New("metrics: invalid input")

// contingency returns the table n_ij = #{s : pred[s] = cluster i, truth[s]
// = class j} over the distinct values of pred (rows) and truth (columns),
// each in increasing order.
func contingency(truth, pred []int) ([][]float64, error) {
	if len(truth) != len(pred) {
		return nil, fmt.Errorf("%w: %d true labels, %d predicted", ErrInput, len(truth), len(pred))
	}
	if len(truth) == 0 {
		return nil, fmt.Errorf("%w: no labels", ErrInput)
	}
	ci, nc := index(pred)
	cj, nk := index(truth)
	tab := make([][]float64, nc)
	for i := range tab {
		tab[i] = make([]float64, nk)
	}
	for s := range truth {
		tab[ci[s]][cj[s]]++
	}
	return tab, nil
}

// index maps labels onto 0…k−1 in increasing order of the label values.
func index(labels []int) ([]int, int) {
	seen := map[int]bool{}
	var vals []int
	for _, l := range labels {
		if !seen[l] {
			seen[l] = true
			vals = append(vals, l)
		}
	}
	sort.Ints(vals)
	pos := make(map[int]int, len(vals))
	for i, v := range vals {
		pos[v] = i
	}
	out := make([]int, len(labels))
	for s, l := range labels {
		out[s] = pos[l]
	}
	return out, len(vals)
}

// ClusteringAccuracy is the clustering accuracy AC of Cai, He & Han, AAAI 2007
// (§"Clustering on Reuters-21578"; Cai, He & Han 2005):
//
//	AC = Σ_i δ(s_i, map(r_i)) / n
//
// with s_i the true label of sample i, r_i its cluster, and map the
// one-to-one mapping of clusters onto classes that makes AC largest, found
// by the Kuhn–Munkres algorithm (Assign) on the contingency table. The
// labels are any integers; the numbers of clusters and classes may differ,
// and clusters left without a class (or classes without a cluster) count as
// wrong. AC is invariant to renaming the clusters. Cost O(n + c²·k) for c
// clusters and k classes.
func ClusteringAccuracy(truth, pred []int) (float64, error) {
	tab, err := contingency(truth, pred)
	if err != nil {
		return 0, err
	}
	big := 0.0
	for _, row := range tab {
		for _, v := range row {
			big = max(big, v)
		}
	}
	// Maximize the matched counts: minimize big − n_ij.
	cost := make([][]float64, len(tab))
	for i, row := range tab {
		cost[i] = make([]float64, len(row))
		for j, v := range row {
			cost[i][j] = big - v
		}
	}
	assign, _, err := Assign(cost)
	if err != nil {
		return 0, err
	}
	right := 0.0
	for i, j := range assign {
		if j >= 0 {
			right += tab[i][j]
		}
	}
	return right / float64(len(truth)), nil
}

// NMI is the normalized mutual information of two labelings (Strehl & Ghosh,
// "Cluster ensembles", JMLR 3, 2002; the normalisation of Vinh, Epps &
// Bailey, JMLR 11, 2010):
//
//	NMI = I(T; P) / ((H(T) + H(P))/2)
//
// with the arithmetic mean of the entropies in the denominator: scikit-learn's
// normalized_mutual_info_score with its default average_method='arithmetic'
// (Strehl & Ghosh's own normalisation is the geometric mean √(H(T)·H(P));
// Cai's papers use max(H(T), H(P))). Logarithms cancel; natural ones are
// used. As scikit-learn does, two labelings that each put every sample in
// one group score 1, and NMI is 0 when the mutual information is 0. The
// value lies in [0, 1] and is symmetric in its arguments.
func NMI(truth, pred []int) (float64, error) {
	tab, err := contingency(truth, pred)
	if err != nil {
		return 0, err
	}
	nc, nk := len(tab), len(tab[0])
	if nc == 1 && nk == 1 {
		return 1, nil
	}
	n := float64(len(truth))
	rows := make([]float64, nc)
	cols := make([]float64, nk)
	for i, row := range tab {
		for j, v := range row {
			rows[i] += v
			cols[j] += v
		}
	}
	mi := 0.0
	for i, row := range tab {
		for j, v := range row {
			if v > 0 {
				mi += v / n * math.Log(v*n/(rows[i]*cols[j]))
			}
		}
	}
	if mi <= 0 {
		return 0, nil
	}
	h := func(counts []float64) float64 {
		e := 0.0
		for _, v := range counts {
			if v > 0 {
				e -= v / n * math.Log(v/n)
			}
		}
		return e
	}
	return mi / ((h(rows) + h(cols)) / 2), nil
}

// KMeans clusters the rows of x into k groups by the project's k-means
// (engine/cluster: Lloyd's iterations from greedy k-means++ seeds) run
// restarts times from different seeds, keeping the run with the lowest
// objective (the sum of squared distances to the centres), as the protocol
// of Cai, He & Han, AAAI 2007 Table 1 does with 10 restarts. It returns the
// cluster of every row. A *sparse.CSR stays sparse (cluster.FitSparse:
// nnz·k flam per iteration); anything else is read densely.
func KMeans(ctx context.Context, x mat.Matrix, k, restarts int, seed uint64) ([]int, error) {
	s := cluster.KMeans{K: k, Restarts: restarts, Seed: seed}
	var res *cluster.Result
	var err error
	if c, ok := x.(*sparse.CSR); ok {
		res, err = s.FitSparse(ctx, c)
	} else {
		var g blas64.General
		if g, err = denseRows(x); err != nil {
			return nil, err
		}
		res, err = s.Fit(ctx, g)
	}
	if errors.Is(err, cluster.ErrInput) {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	if err != nil {
		return nil, err
	}
	return res.Labels, nil
}
