package metrics

import (
	"fmt"
	"math"
)

// Assign solves the linear assignment problem: given an r×c cost matrix
// (cost[i][j], every row of the same length), it returns for every row
// the column assigned to it (each column used at most once) such that the
// total cost Σ_i cost[i][assign[i]] is the least possible, and that total.
// When r > c only c rows can be assigned and the others get −1; when r < c
// some columns stay unused.
//
// It is the Hungarian method of Kuhn (1955) with Munkres' (1957) polynomial
// bound, in its shortest-augmenting-path form with dual potentials (as in
// Lovász & Plummer, "Matching Theory", 1986, the reference of
// Cai, He & Han, AAAI 2007; and Jonker & Volgenant, Computing 38, 1987):
// rows are inserted one at a time, and each insertion grows a tree of
// tight edges (reduced cost u_i + v_j = cost_ij) by Dijkstra-like steps on
// the reduced costs until it reaches a free column, then augments along the
// path. O(r²·c) time for r ≤ c, O(r·c) memory.
//
// A cost that is NaN or ±Inf is an error (wrapping ErrInput).
func Assign(cost [][]float64) (assign []int, total float64, err error) {
	r := len(cost)
	if r == 0 {
		return nil, 0, nil
	}
	c := len(cost[0])
	for i, row := range cost {
		if len(row) != c {
			return nil, 0, fmt.Errorf("%w: cost row %d has %d columns, row 0 has %d", ErrInput, i, len(row), c)
		}
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, 0, fmt.Errorf("%w: cost[%d][%d] = %v", ErrInput, i, j, v)
			}
		}
	}
	assign = make([]int, r)
	for i := range assign {
		assign[i] = -1
	}
	if c == 0 {
		return assign, 0, nil
	}
	if r <= c {
		col := hungarian(r, c, func(i, j int) float64 { return cost[i][j] })
		copy(assign, col)
	} else {
		// Assign the columns to rows on the transpose.
		row := hungarian(c, r, func(i, j int) float64 { return cost[j][i] })
		for j, i := range row {
			assign[i] = j
		}
	}
	for i, j := range assign {
		if j >= 0 {
			total += cost[i][j]
		}
	}
	return assign, total, nil
}

// hungarian assigns each of the n rows to a distinct one of the m ≥ n
// columns at the least total cost a(i, j) and returns the column of every
// row.
//
// The dual variables u (rows) and v (columns) keep every reduced cost
// a(i,j) − u_i − v_j ≥ 0, with equality on the matched edges. Column index
// 0 is a sentinel standing for the row being inserted; columns 1…m are the
// real ones, and owner[j] is the row (1-based, 0 = free) matched to column j.
func hungarian(n, m int, a func(i, j int) float64) []int {
	inf := math.Inf(1)
	u := make([]float64, n+1)
	v := make([]float64, m+1)
	owner := make([]int, m+1)
	prev := make([]int, m+1)      // the column before j on the alternating path
	slack := make([]float64, m+1) // least reduced cost from the tree to column j
	inTree := make([]bool, m+1)
	for row := 1; row <= n; row++ {
		owner[0] = row
		cur := 0 // the column whose owner was last added to the tree
		for j := range slack {
			slack[j] = inf
			inTree[j] = false
		}
		for {
			inTree[cur] = true
			i := owner[cur]
			delta, next := inf, -1
			for j := 1; j <= m; j++ {
				if inTree[j] {
					continue
				}
				if rc := a(i-1, j-1) - u[i] - v[j]; rc < slack[j] {
					slack[j] = rc
					prev[j] = cur
				}
				if slack[j] < delta {
					delta, next = slack[j], j
				}
			}
			// Move the potentials by delta: the tree's edges stay tight and
			// the edge into column next becomes tight.
			for j := 0; j <= m; j++ {
				if inTree[j] {
					u[owner[j]] += delta
					v[j] -= delta
				} else {
					slack[j] -= delta
				}
			}
			cur = next
			if owner[cur] == 0 {
				break // a free column: augment
			}
		}
		// Flip the matching along the path back to the sentinel.
		for cur != 0 {
			p := prev[cur]
			owner[cur] = owner[p]
			cur = p
		}
	}
	col := make([]int, n)
	for j := 1; j <= m; j++ {
		if owner[j] > 0 {
			col[owner[j]-1] = j - 1
		}
	}
	return col
}
