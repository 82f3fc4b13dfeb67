// Package tall holds the products of tall, narrow blocks of vectors (n
// rows, a few columns) that the engine's eigensolvers run every
// iteration: the projections against locked or null vectors, the
// orthonormalizations, the column norms. A general matrix product splits
// its output into 64×64 tiles and hands them to goroutines; an n×1 output
// is then hundreds of tiles of one column, and the product of 50,000 rows
// by 4 columns took about a millisecond where reading its operands takes a
// tenth of that (pprof of Laplacian eigenmaps at 50,000 points). These run
// over fixed chunks of rows instead, in parallel, and add the chunks'
// partial sums in chunk order, so that the result does not depend on the
// number of goroutines.
package tall
