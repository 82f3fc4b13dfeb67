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
// Methods lists the methods for code that fits any of them by name (the
// command line, the Beam pipelines, the tests): each Method makes its
// settings struct (New), sets a setting by the name its field's tag gives
// (Set: "k", "alpha", …) and fits (Fit).
//
// # Sparse rows
//
// Text corpora come as sparse document–term matrices (*sparse.CSR, rows =
// documents). LSI, LPP, NPE, LTSA, Laplacian eigenmaps and Isometric
// Projection take them as they are (centring, where a method needs it,
// stays implicit), and their models map sparse or dense new rows alike.
// Isomap and Landmark Isomap search their neighbours from the sparse rows
// and keep their training rows dense for Transform; the other methods
// densify their input.
//
// # Neighbour search
//
// Every graph method (Isomap, Landmark Isomap, Isometric Projection, OIP,
// SOIP, LPP, NPE, LLE, landmark LLE, LTSA, TDPM, Laplacian eigenmaps)
// finds its neighbours in one place (graph.go) as Options.Neighbors says: exact
// (engine/neighbors' k-d tree or blocked brute force), approximate
// (NN-descent from a random-projection forest, neighbors.KNNApprox), or
// by default automatic: exact while the exact search's predicted flam is
// at most AutoApproxFlam (3e10, measured: about 11,000 points of 256
// features), approximate beyond. The stage "neighbors" of the report names
// the search (Stage.Search) and, when approximate, its recall@k measured
// on a seeded sample of 200 points against brute force (Stage.Recall, with
// its standard error). A model fitted with approximate neighbours answers
// Transform's neighbour look-ups by an index of its training rows
// (neighbors.Index, built on the first Transform under that call's
// context, or at the end of the fit in a stage "index" when
// Neighbors.IndexK widens its graph), searched at Neighbors.Width. That
// index can find a true neighbour of a training row that the graph's
// approximate list missed, and a geodesic model then maps the row through
// that shorter edge: its Transform of the training rows is not quite
// their embedding (Isomap of the first 600 USPS digits, k = 10: 22 rows
// differ, all among the 30 whose lists miss a true neighbour, the farthest
// by a third of the embedding's range). With exact neighbours LLE, LTSA,
// Laplacian eigenmaps and TDPM answer the look-ups by a neighbors.Searcher
// of the training rows, made on the first Transform (its k-d tree built
// once, not at every call), and the Isomap family by a neighbors.Exact of
// the training rows (exact, one row at a time, made on the first
// Transform). Neighbors.Graph gives a
// precomputed graph instead (the command's -graph FILE.mtx; manifold
// neighbors writes one). KNNGraph is the neighbour search alone, as a
// product.
//
// # Reports and profiles
//
// Each stage of a fit runs under the pprof label stage=<name> (so
// `go tool pprof -tagfocus stage=eigensolve` isolates it) and records its
// predicted flam (from backend/flam, following the papers' operation
// counts), measured seconds, iterations and bytes allocated; the report also
// carries the peak heap seen during the fit and the backend description.
//
// # Reliability
//
// The engine is linked into services: the caller's data never causes a
// panic, never comes back as silent garbage, and a fit can be stopped,
// bounded in memory and reproduced. The tests named below (files
// reliability_*_test.go, over every method through one table) hold these
// promises to account.
//
// Bad input. Every failure caused by the data or the settings wraps one of
// the Err values (TestBadInput, TestBadTransformInput, TestBadModelFiles;
// the command's TestBadInputEveryMethod): empty input (ErrEmpty), one
// sample or k ≥ N (ErrTooFewSamples; ErrDimension where the method has no
// second dimension to give), dim ≥ N or dim > D for a linear method
// (ErrDimension), NaN or ±Inf (ErrNotFinite), labels of the wrong length or
// a single class (ErrLabels), a graph that falls apart under the error
// policy (ErrDisconnected, naming the components and the choices "connect"
// and "largest", which both embed), a damaged, truncated or
// other-version model file, or one whose arrays hold NaN (ErrModelFile).
// Every embedding returned is finite. Degenerate data, decided per case:
//
//   - all samples the same point: ErrDimension, for every method (there is
//     no distance or direction to embed); LSI, which does not centre,
//     embeds identical rows in one dimension and refuses more by its rank
//     check (σ_j ≤ 1e-6·σ_1 counts as zero);
//   - values whose squared distances overflow (above about
//     √(MaxFloat64 / (8·max(N, D)·D)), 1e152 for small data): ErrNotFinite;
//     samples that differ by less than 1e-150, whose squared differences
//     underflow: ErrNumerical; rescale either. OIP and SOIP, whose M is of
//     the fourth degree in the data, take values up to
//     MaxFloat64^¼ / √(8·max(N, D)·D) (about 1e74 for a few hundred samples
//     of 256 features) and a spread of at least 1e-75. Within these ranges
//     every method but two embeds the data as it embeds them scaled by a
//     power of two, up to that scale; IsoProjection's ridge α and Low-Rank
//     Isomap's LRR λ (without UnitScale) weigh terms of different degrees,
//     so their embeddings depend on the data's scale;
//   - duplicate rows, even 40 copies of one point among 60: embedded (the
//     copies land on one point); a neighbour graph made only of copies
//     falls apart and says so;
//   - a zero-variance feature: ignored by every method except LDA, whose
//     within-class scatter becomes singular (ErrNumerical, asking for Reg >
//     0), and TDPM when the remaining features are flat in its tangent
//     dimension (ErrDimension);
//   - data of rank r (points on a line): the linear methods refuse dim > r
//     (ErrDimension; LDA ErrNumerical as above); the nonlinear ones embed,
//     and Isometric Projection returns its ridge solution, whose columns
//     then lie in the data's span;
//   - disconnected neighbour graphs: Isomap, Landmark Isomap, Isometric
//     Projection, OIP, SOIP and Laplacian eigenmaps follow their
//     Disconnected policy; LLE and LTSA refuse (ErrDisconnected: their
//     bottom eigenvectors would only separate the components); LPP, NPE,
//     TDPM and landmark LLE embed (their problems stay well posed;
//     landmark LLE reports its reduced problem's nullity); an ε-graph point
//     without neighbours is a component of its own, and NPE, which cannot
//     reconstruct it, names it (ErrBadSetting).
//
// Cancellation. Fit returns an error wrapping context.Canceled within
// 100 ms of the cancel whatever the stage (TestCancelEveryStage: cancelled
// from the progress callback as each stage starts and by timers inside
// stages, for every method and solver path; MANIFOLD_CANCEL_N and
// MANIFOLD_CANCEL_D run it at other sizes). Iterations and chunks check
// ctx; one long library call cannot, so the stages split theirs:
// products by backend.GemmCtx and SyrkCtx, distances by SqDistCtx, dense
// eigenproblems by EigTopCtx/EigBottomCtx (above about 50 ms of work,
// 500×500 in pure Go, the tridiagonal reduction runs in panels; with
// OpenBLAS above about 850×850 this costs up to 4× the one-call time). A
// context cancelled before Fit returns always gives the error, never a
// model. Measured on the 2-core reference machine at N = 60,000, D = 3
// (MANIFOLD_CANCEL_N=60000 MANIFOLD_CANCEL_D=3 go test ./engine -run
// TestCancelEveryStage -v): at most 39 ms in every stage the default budget
// admits, 77 ms as Isomap's float32 geodesics start; at N = 12,000,
// D = 100 (2026-11-28) at most 71 ms in 179 cancels over every method and
// solver path. LLE's Lanczos path does
// not converge on some data (1000 restarts); it is stopped by ctx too.
//
// Memory budgets. With Options.MaxBytes set (the command's -max-memory),
// every method estimates the peak of its fit before allocating (the
// estimate is Report.EstimatedBytes) and refuses with ErrMemoryBudget
// naming the estimate and cheaper settings (float32 geodesics, landmarks,
// the Lanczos eigensolver, fewer samples, a method that keeps sparse rows
// sparse); so does KNNGraph's search (TestMemoryBudgetKNNGraph). The
// estimate counts the dense copy of an input that is not a *mat.Dense,
// the neighbour search's tile of up to 8 MiB and, when the search is
// approximate, NN-descent's float32 copy of the rows, forest, heaps,
// candidate lists and the local joins' proposals (neighbors.ApproxBytes,
// within 0.5–1.3 of the heap it adds, the low end on Gaussian rows, which
// propose fewer pairs than manifold data: TestApproxBytes). Measured with
// GOGC = 1, the peak heap a fit adds lies within [estimate/3,
// 2.5·estimate] ± 4 MiB (TestMemoryBudget, at 1100×10 and 400×150: ratios
// 0.45–1.4 for the methods whose estimate exceeds 4 MiB). With the default
// GOGC the process's heap can hold up to twice the live peak before a
// collection; set GOMEMLIMIT accordingly. DefaultMaxBytes is a budget
// taken from what the machine has now (AvailableMemory: /proc/meminfo's
// MemAvailable, the cgroup v2 memory.max less its use, GOMEMLIMIT), less
// DefaultBudgetMargin (15 %); the command uses it when -max-memory is not
// given. Load (LoadCtx) reads a model's header first and refuses arrays
// the file cannot hold or the budget cannot afford before allocating.
//
// Determinism. On one backend the same Seed gives bit-identical
// embeddings and mappings whatever GOMAXPROCS (TestDeterminismAcrossGOMAXPROCS:
// 1, 2 and 8, every method, dense and iterative paths), provided the BLAS
// threads per call (backend.SetThreads) are the same: the pure-Go backend
// splits its work by size, never by thread count, but OpenBLAS sums in a
// different order with a different number of threads. backend.SetThreads
// sizes the cgo-call semaphore from GOMAXPROCS when it is called: call it
// again after changing GOMAXPROCS. Across BLAS thread counts
// (TestBLASThreadsAgree) and between the pure-Go and OpenBLAS backends
// (TestBackendsAgree, against the pure-Go results stored in
// testdata/reliability) the embeddings agree to a relative difference
// (largest elementwise difference over the largest magnitude) of 1e-8,
// except LLE 1e-5 (its bottom eigenvectors are ill-conditioned) and
// Isometric Projection, Low-Rank Isomap and SOIP 1e-6 (iterative solvers
// stopped at a tolerance). Measured OpenBLAS against pure Go on 150×5
// data: 1e-10 (LLE), 3e-11 (Isometric Projection), ≤ 1e-12 otherwise.
//
// Concurrency. A model is read-only after Fit: Transform from 16
// goroutines at once gives each the same result as a lone call
// (TestConcurrentTransform, run under -race by CI), and no goroutine of
// the engine outlives a Fit or a Transform, finished or cancelled (a
// settle loop on runtime.NumGoroutine in both tests).
//
// Fuzzing. FuzzFit (every method, random shapes up to 40×6, settings —
// approximate neighbours among them — and values including duplicates,
// NaN, Inf, 1e±200), FuzzLoad (model files,
// the checksum repaired so mutations reach the decoder) and the readers'
// FuzzReadCSV, FuzzReadNPY and FuzzReadMatrixMarket (dataio) run
// their seeds and testdata/fuzz corpora with every go test (go test -fuzz
// FuzzFit ./engine runs one further).
package engine
