// Package discriminant holds the numeric kernels of Fisher's linear
// discriminant (Fisher, "The use of multiple measurements in taxonomic
// problems", Annals of Eugenics 7(2), 1936, doi:10.1111/j.1469-1809.1936.tb02137.x)
// that the engine's LDA and Low-Rank Isomap run inside their stages: the
// class index of a set of labels, the class scatter matrices, the
// whitening of centred data by its principal components (Deng Cai's
// reference code of Cai, He & Han, "SRDA: an efficient algorithm for
// large-scale discriminant analysis", IEEE TKDE 20(1), 2008, §2–3), the
// between-class directions in the whitened space, and the generalized
// eigenproblem S_B·w = λ·S_W·w by the Cholesky reduction of S_W (as in
// the Fisherfaces of Belhumeur, Hespanha & Kriegman, "Eigenfaces vs.
// Fisherfaces: recognition using class specific linear projection", IEEE
// TPAMI 19(7), 1997, doi:10.1109/34.598228, §2.3).
//
// The functions take centred rows as blas64.General and run on the active
// backend; those that take a context check it between the pieces of their
// matrix products and eigensolvers and return an error wrapping ctx.Err()
// when it is cancelled. Their other errors are plain (the backend's, or
// ErrNoVariance and ErrSingular): the caller (engine's LDA and its
// relatives) names them and owns the method around them — the settings,
// the stages and what they report, the model.
package discriminant
