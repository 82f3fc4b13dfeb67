// Package principal finds the leading principal axes of a set of rows from
// an evenly spaced sample, and projects every row on them in blocks: the
// step shared by the engine's filters that compare rows on a few principal
// coordinates before their exact distances (the neighbour index's walk,
// the max-min landmark choice's lower bounds). The rows come through a
// function, so that callers keep them in their own order and precision.
package principal
