// Package engine is the public API of manifold: the dimensionality-reduction
// methods, their fitted models and the stage reports that say where the
// time went.
//
// Every method is a settings struct whose zero value means documented
// defaults, with a Fit(ctx, X) method returning a model:
//
//	m, err := engine.PCA{Dim: 2}.Fit(ctx, X)   // X: any mat.Matrix, rows = samples
//	Y := m.Embedding()                         // n×2, training points
//	Z, err := m.Transform(ctx, Xnew)           // new points
//	fmt.Print(m.Report().Table())              // stage, predicted flam, seconds, GFLAM/s
//
// Fit never lets the caller's data cause a panic: bad input returns an error
// wrapping one of the Err values of this package (errors.Is works). ctx is
// checked at every stage boundary and at chunk or iteration boundaries
// inside long stages, so cancellation lands within about 100 ms. Settings
// are never modified by Fit. Models are safe for concurrent Transform calls
// and can be saved and loaded (Model.Save, Load; format in modelfile.go).
//
// # Sparse rows
//
// Text corpora come as sparse document–term matrices (*sparse.CSR, rows =
// documents). LSI, LPP, NPE, LTSA and Laplacian eigenmaps take them as they
// are (centring, where a method needs it, stays implicit), and their models
// map sparse or dense new rows alike; the other methods densify their
// input.
//
// # Reports and profiles
//
// Each stage of a fit runs under the pprof label stage=<name> (so
// `go tool pprof -tagfocus stage=eigensolve` isolates it) and records its
// predicted flam (from backend/flam, following the papers' operation
// counts), measured seconds, iterations and bytes allocated; the report also
// carries the peak heap seen during the fit and the backend description.
package engine
