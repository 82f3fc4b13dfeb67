// Command manifold fits manifold-learning and dimensionality-reduction
// methods to data files, maps new samples with saved models, draws the
// embeddings and reports where the time went.
//
// Usage:
//
//	manifold embed   -method NAME [-in FILE] [-labels FILE] [-supervised] [-dim D] [-k K | -eps E]
//	                 [-alpha A] [-landmarks L [-landmark-k K] [-landmark-choice C]] [-tangent-dim T]
//	                 [-disconnected error|connect|largest]
//	                 [-supervised-geodesic constant|join] [-weight heat|binary] [-float32] [-max-iter N]
//	                 [-eigensolver auto|dense|lanczos|uncertified|lobpcg]
//	                 [-neighbors auto|exact|approx [-search-width W] [-refine W] [-index-k K] | -graph FILE.mtx]
//	                 [-seed S] [-out FILE|-|/dev/null] [-model FILE] [-plot FILE.png] [-report FILE.json]
//	                 [-cpuprofile FILE] [-memprofile FILE] [-max-memory SIZE] [-quiet]
//	manifold project -model FILE -in FILE [-out FILE]
//	manifold neighbors -k K [-neighbors auto|exact|approx [-refine W]] [-float32] [-max-memory SIZE] -in FILE -out GRAPH.mtx [-report FILE.json]
//	manifold serve   -model [NAME=]FILE ... [-addr 127.0.0.1:8080]
//	manifold demo    [-method NAME] [-plot FILE.png]
//	manifold info
//
// These names are a contract (docs/design.md, "Command-line contract"): scripts
// rely on them. manifold SUBCOMMAND -h lists a subcommand's flags.
//
// # neighbors
//
// neighbors writes the k-nearest-neighbour graph of the rows of -in as a
// MatrixMarket coordinate file (real general, n×n, 1-based): row i holds
// point i's -k nearest other points, sorted by distance, with the
// Euclidean distance as the value. -neighbors chooses the search as for
// embed; -report writes the stage report (search, and for NN-descent the
// recall measured on -recall-sample points, default 200); -seed seeds
// NN-descent; -refine W refines NN-descent's lists by one search of their
// graph a row at width W (higher recall, about twice the time). An
// approximate search of a .npy input reads its rows in
// float32 and searches them in place (half the memory), or in float64 when
// their squared distances would overflow float32; -float32 forces float32
// for any search, -float32=false reads float64. -max-memory bounds the
// reading and the search as embed's bounds the reading and the fit (default:
// the memory available less 15 %): a search whose estimate is larger stops
// before allocating, naming the estimate.
//
// # embed
//
// embed fits -method to the rows of -in (samples in rows, features in
// columns) and writes the n×D embedding: to -out, or as CSV to standard
// output. Without -in it embeds the built-in data set, a 2000-point swiss
// roll (scikit-learn's make_swiss_roll formula, noise 0, the same points on
// every run).
//
// Methods (NAME): pca, mds, isomap, landmark-isomap, lle, landmark-lle,
// isoprojection, oip, soip, tdpm, lowrank-isomap, lpp, npe, lda, ltsa,
// laplacian (and lsi, for sparse text corpora); manifold info lists them.
//
// Flags:
//
//	-method NAME       the method (required)
//	-in FILE           input matrix, format by extension (see Files)
//	-labels FILE       class labels, one per line: colour the plot, supervise
//	                   -supervised and lda; their number must match the samples
//	-supervised        neighbour graphs within each class only (needs -labels;
//	                   -k 0 then means all of the class)
//	-supervised-geodesic G
//	                   isomap, isoprojection, oip, soip with -supervised: the
//	                   geodesic between classes, constant (default: 1000 ×
//	                   the largest within-class geodesic, as the papers' code)
//	                   or join (classes joined at their closest pairs)
//	-dim D             output dimension (default 2)
//	-k K               neighbours per point of the graph methods
//	-eps E             neighbourhood radius instead of -k (not both)
//	-alpha A           the method's regularization (ridge, lasso, low-rank)
//	-landmarks L       landmarks of landmark-isomap, landmark-lle and
//	                   lowrank-isomap
//	-landmark-k K      landmark-lle: landmarks each point is reconstructed
//	                   from (default dim + 1, at most L)
//	-landmark-choice C how landmark-isomap and landmark-lle choose their
//	                   landmarks: random, kmeans++, kmeans or maxmin
//	                   (default: maxmin for landmark-isomap, random for
//	                   landmark-lle)
//	-max-iter N        bound on each LSQR regression of isoprojection
//	-tangent-dim T     tdpm's tangent-space dimension (default -dim)
//	-disconnected P    when the neighbour graph falls apart: error (default;
//	                   the error names the components and these choices),
//	                   connect (join components by their closest points) or
//	                   largest (keep the largest component)
//	-weight W          edge weights of laplacian and lpp: heat (the heat
//	                   kernel, the default) or binary (1 on every edge;
//	                   scikit-learn's SpectralEmbedding of a binary graph)
//	-eigensolver E     the bottom eigensolver of lle, ltsa and laplacian:
//	                   auto (the default: dense up to 500 points, else
//	                   shift-invert Lanczos on an LDLᵀ factor with an
//	                   inertia certificate), dense, lanczos, or uncertified
//	                   (Lanczos on the matrix alone: no factor, no
//	                   certificate; residuals checked, the report says "not
//	                   certified"). A fit whose factor the certified path
//	                   cannot afford (neighbour graphs of high-dimensional
//	                   data fill it in) stops with an error that names
//	                   uncertified. lobpcg, for lle and ltsa on dense rows:
//	                   LOBPCG on M (ltsa: B) started from and
//	                   preconditioned by 1000 locally linear landmarks (no
//	                   factor, no certificate, residuals checked); on lle's
//	                   M of such data it converges where uncertified does
//	                   not. isomap and isoprojection read it for
//	                   the top eigenpairs of τ(D_G): auto (dense up to 500
//	                   points or when dim > N/10, else Lanczos), dense or
//	                   lanczos
//	-float32           isomap: geodesics in float32 (half the N×N matrix;
//	                   the report's params say float32). Without it, an
//	                   isomap fit that -max-memory refuses is retried in
//	                   float32, with a note on standard error (not with
//	                   -eigensolver dense, which reads float64 only). When
//	                   -max-memory is short of the searches' ring of float64
//	                   rows (n/32 rows at most), the ring is kept in the
//	                   matrix's last rows: nothing besides the matrix, a few
//	                   per cent more time (the geodesics stage's detail says so)
//	-neighbors S       the neighbour search of the graph methods: auto (the
//	                   default: exact while its predicted cost is at most
//	                   engine.AutoApproxFlam, NN-descent beyond), exact, or
//	                   approx (NN-descent; the report's neighbours stage
//	                   gives its recall measured on 200 sampled points)
//	-search-width W    with approximate neighbours: the search width of the
//	                   model's Transform queries (candidates kept; 0, the
//	                   default: max(2k, 30)); kept in the model file
//	-index-k K         isomap, landmark-isomap, lle, ltsa, laplacian with
//	                   approximate neighbours: the graph the model's Transform
//	                   queries walk widened to the K nearest training rows of
//	                   every row (a fit stage "index", one search a row; 0, the
//	                   default: the fit's lists); a given recall at a smaller
//	                   -search-width, so a faster Transform; the report's index_k
//	-refine W          with approximate neighbours: NN-descent's lists refined
//	                   by one search of their graph a row at width W (at
//	                   least k + 1; 0, the default: none); the report's
//	                   refine_width
//	-graph FILE.mtx    a neighbour graph in place of the search (n×n, weights =
//	                   distances, directed or symmetric; e.g. written by
//	                   manifold neighbors); not with -eps, -supervised or
//	                   -neighbors
//	-seed S            random seed (landmarks, initializations); accepted by
//	                   every method, used by the randomized ones
//	-out FILE          write the embedding: .csv or .npy; - standard output; /dev/null none
//	-model FILE        save the fitted model for manifold project
//	-plot FILE.png     draw the first two coordinates (the first against the
//	                   sample index when -dim 1), coloured by label with a
//	                   legend, or by the roll parameter with a colour bar for
//	                   the built-in data; the title names the method and its
//	                   settings in effect
//	-plot-size WxH     picture size in pixels (default 800x600)
//	-report FILE.json  the stage report (see Reports)
//	-cpuprofile FILE   CPU profile of the run (see Profiles)
//	-memprofile FILE   heap profile written after the fit
//	-max-memory SIZE   memory budget of the fit: 500MB, 8GiB, 1.5GB or a
//	                   number of bytes (kB, MB, GB, TB are powers of 1000;
//	                   KiB, MiB, GiB, TiB of 1024). The method estimates its
//	                   peak before allocating and, above the budget, stops
//	                   with an error naming the estimate and cheaper
//	                   settings (float32 geodesics, landmarks, the Lanczos
//	                   eigensolver, fewer samples) instead of being killed
//	                   by the operating system. The input counts too: a
//	                   matrix or labels file that would take more is refused
//	                   while it is read, and so is more than 16 times the
//	                   budget of (decompressed) input. Default: what the
//	                   machine or its cgroup has available when the command
//	                   starts (/proc/meminfo's MemAvailable, cgroup v2
//	                   memory.max less its use, GOMEMLIMIT), less 15 %;
//	                   -max-memory 0: no budget
//	-quiet             no progress bar
//
// The method-specific flags (-k, -eps, -alpha, -landmarks, -tangent-dim,
// -disconnected, -supervised) are refused by a method that does not read
// them, rather than silently ignored. The engine's defaults apply to every
// flag not given; -report and the plot title show the values in effect.
//
// # The TDPM pipeline
//
// Zhao & Jiang, TDPM §4.3 maps the Isomap faces with
// TDPM to h = 6 dimensions and then with Isomap to 2. Two embed runs do it,
// the first writing the TDPM coordinates that the second reads:
//
//	manifold embed -method tdpm -in ../shared/data/isomap_faces_32x32/isomap_faces_32x32_X.npy \
//	        -dim 6 -k 12 -out h.npy
//	manifold embed -method isomap -in h.npy -dim 2 -out faces2d.csv -plot faces2d.png
//
// (-tangent-dim defaults to -dim, the paper's d; TestTDPMPipeline runs the
// same two commands on synthetic data and checks them against the engine.)
//
// # project
//
// project loads a model saved by embed -model and maps the rows of -in
// (new samples with the training data's features) into its embedding,
// writing them to -out (.csv or .npy) or as CSV to standard output.
//
// # serve
//
// serve loads models saved by embed -model (a name before '=', else the
// file's base name without extension) and serves their Transform over
// HTTP on a loopback address (127.0.0.0/8, ::1 or localhost; anything else
// is refused): POST /v1/models/{name}/transform with {"rows": [[...], ...]}
// answers {"embedding": [[...], ...]}; a body of Content-Type
// application/x-npy is answered in NPY. GET /v1/models and
// /v1/models/{name} describe the models (method, dim, features, report),
// /healthz and /readyz say whether it runs and takes requests, /metrics
// counts requests by model and status, latency (histogram), rows and
// errors by kind in the Prometheus text format. -max-inflight requests are
// mapped at once and -queue more wait; beyond that a request gets 503 with
// Retry-After at once. -max-body and -max-rows bound a request (413),
// -timeout its time (504). SIGTERM stops accepting and finishes the
// requests in flight; SIGHUP reloads every model file, and files whose
// modification time or size changed are reloaded every -reload-interval:
// requests in flight finish on the model they started with. A file that
// fails to load leaves the old model in service (and is counted in
// /metrics). Errors are JSON: {"error": "...", "kind": "bad_input"}.
//
// # demo
//
// demo embeds the built-in swiss roll with Isomap (with pca while the
// engine of this build has no isomap, and it says so) or -method, writes a
// picture of the 3-D input (an oblique projection) beside the embedding,
// both coloured by the roll parameter, to -plot (default
// manifold-demo.png, 1400×600 pixels, -plot-size to change), and prints the
// stage report table: stage, predicted flam, seconds, GFLAM/s, iterations
// and the path taken. It also takes -quiet.
//
// # info
//
// info prints the library version (from the binary's build information,
// with the VCS revision and build tags when recorded), the Go version, the
// linear algebra backend (purego, or openblas in a -tags openblas build),
// its configuration string, BLAS threads per call, concurrent BLAS calls,
// GOMAXPROCS, the CPU count and the methods of this build.
//
// # Files
//
// Input matrices, by extension (case-insensitive):
//
//	.csv, .csv.gz  comma-separated numbers, one sample per line. A first line
//	               without any number is a header and skipped; blank lines
//	               and lines starting with # are skipped. A number is
//	               decimal, [+-](digits[.[digits]]|.digits)[(e|E)[+-]digits],
//	               spaces around it allowed. Ragged rows, empty cells,
//	               non-numbers, quoted numbers, hexadecimal floats
//	               (0x1p-2), digit separators (1_000), NaN and Inf are
//	               errors naming the line and column. A line is at most
//	               64 MiB.
//	.npy           NumPy array, any real numeric dtype (bool, int8…int64,
//	               uint8…uint64, float16/32/64, either byte order), C or
//	               Fortran order; (n,) is n samples of one feature and
//	               (n, a, b, …) is n samples of a·b·… features.
//	.mtx, .mtx.gz  MatrixMarket, read as a sparse matrix (rows = samples,
//	               e.g. documents × terms): lsi, lpp, npe, ltsa,
//	               laplacian and isoprojection keep it sparse; isomap and
//	               landmark-isomap search their neighbours from the sparse
//	               rows and keep their training rows dense; the other
//	               methods densify it.
//
// Labels files hold one label per line, integers or any strings; a blank
// line before the last label is an error (it would shift the labels). Output
// files (-out) are .csv (shortest exact decimal form) or .npy ('<f8', C
// order). Model files are the engine's versioned, checksummed format.
//
// Outputs are all or nothing: -out, -model, -report and -plot are each
// written to a temporary file beside the destination (".manifold-…") and
// renamed into place only once all of them, and the embedding on standard
// output, have been written; on any error the destinations are as they
// were. (A destination that is not a regular file, such as a named pipe, is
// written in place.) Every embedding and projection is checked finite
// before anything is written.
//
// # Reports
//
// -report writes the engine's report as JSON: method, backend, backend_info
// (backend, BLAS config, threads), n, features, dim, seconds, stages (a
// list of {name, seconds, flam_predicted, iterations, bytes_allocated,
// detail}), peak_heap_bytes, base_heap_bytes and params (the settings in
// effect), plus input, labels and version.
//
// # Progress
//
// While a method runs, a progress bar on standard error shows the method,
// the stage, and for stages that know their amount of work a bar, the
// percentage and the estimated time left; the others show the time spent.
// It is drawn only when standard error is a terminal (a character device;
// TERM=dumb turns it off) and -quiet is not given, and it is erased when the
// fit ends, so standard error holds nothing else on success.
//
// # Profiles
//
// Every stage of a fit runs under the pprof label stage=<name> (the
// engine's stages, and the command's own read-input, write-output and
// plot), so with -cpuprofile FILE
//
//	go tool pprof -tags manifold FILE                      # time per stage
//	go tool pprof -tagfocus stage=eigensolve -top manifold FILE
//
// isolate one stage. -memprofile writes a heap profile after the fit; Go's
// heap profiles carry no labels, so allocation per stage is in the report's
// bytes_allocated instead.
//
// # Exit status and errors
//
// The exit status is 0 on success and 1 on any error. An error prints
// exactly one line on standard error, "manifold: SUBCOMMAND: " followed by
// the input concerned (a file name, a flag, or the built-in data) and what
// is wrong with it, for instance
//
//	manifold: embed: data.csv: line 7, column 3: "n/a" is not a number
//	manifold: embed: labels.txt: 150 labels for the 200 samples of data.csv
//	manifold: embed: -k does not apply to method pca (it reads only -dim and -seed)
//
// Errors caused by the data wrap the engine's and the readers' typed errors;
// the program never ends in a Go panic trace. A flag given twice is an
// error. An interrupt (Ctrl-C) cancels the reading of the input (a named
// pipe without a writer included) or the fit within about 100 ms and exits
// with status 1. The Go runtime's soft memory limit is set to the memory
// available when the command starts, unless GOMEMLIMIT sets it.
package main
