// Package manifoldbeam runs the manifold engine inside Apache Beam
// pipelines, so a model learned on a sample maps billions of rows sharded
// over files on any Beam runner (prism locally; Flink, Spark, Dataflow).
//
// It lives in its own Go module (github.com/manifoldlab/manifold/beam) so
// the core library keeps its three dependencies; the module requires the
// Beam Go SDK and the root module through a replace directive.
//
// Project maps rows with a saved model: the model file is read once per
// worker process through Beam's filesystem registry (local paths here;
// the manifold-beam command also registers gs:// and s3://), rows are
// gathered into blocks inside a bundle so each Transform call is a matrix
// product or a batched neighbour search, and a row that cannot be mapped
// goes to the dead letters with its ID and the engine's error text. The
// counters rows_in, rows_out and dead_letters (namespace "manifold") let a
// run check that nothing was lost.
//
// FitPCA, FitLSI and FitLDA fit PCA, LSI and LDA on every row by merging
// distributed statistics; FitLSIWith fits LSI of vocabularies past
// MaxLSITerms with the randomized SVD of Halko, Martinsson & Tropp
// ("Finding structure with randomness", SIAM Review 53(2), 2011): a
// seeded Gaussian range pass, q power passes and a projected pass, D×ℓ
// words a worker. FitSample fits any unsupervised method — or, with the
// rows' classes kept in the sample (SampleFit.Supervised), LDA and the
// supervised graph methods — on a uniform or a stratified sample (bottom-k
// sketches, Cohen & Kaplan, PODC 2007: the same however the rows are
// sharded) on one worker, for Project to map every row with.
//
// Input and output: sharded CSV (ReadCSV, ReadLabeledCSV, WriteCSV), NumPy
// .npy (ReadNPY, WriteNPY) and Parquet (ReadParquet through Beam's
// parquetio; ReadLabeledParquet and ReadParquetColumns, an ID or a label
// column named at run time, through parquet-go's column reader;
// WriteParquet), every output committed by
// renaming, _SUCCESS last. RequireWidth turns rows of another width into
// dead letters.
//
// Cost: one Transform call per block of B rows (DefaultBlock), up to
// ProjectOptions.Parallel blocks at once in a bundle; the model is loaded
// once per worker process, so a worker's start-up cost is the model file's
// size read once.
//
// Only the engine's public API is used (engine.Load, Model.Transform,
// Model.Save and the fits).
package manifoldbeam
