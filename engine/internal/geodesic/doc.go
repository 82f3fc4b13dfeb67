// Package geodesic places new points in a geodesic embedding (Isomap:
// Tenenbaum, de Silva & Langford, Science 290, 2000; Landmark Isomap: de
// Silva & Tenenbaum, NIPS 2003) one row at a time, as a request path
// needs: the new point's neighbours among the training rows (exact, by
// engine/neighbors' Exact, or from an approximate neighbors.Index), its
// geodesics through them over the training graph, and the triangulation of
// landmark MDS (de Silva & Tenenbaum 2003 §3.2), y = −½·(δ − δ̄)·L#.
//
// An Index is prepared once per model; mapping a point then costs the
// search, one Dijkstra from the point's neighbours, O((n + e)·log n), or,
// once PrepareTable has stored the training geodesics, k·R additions, and
// the triangulation, O(R·dim). The package checks nothing of the row
// beyond what its own steps need: the caller (engine's models) checks the
// row's shape and range before and the output after.
package geodesic
