// Package bench holds the project's measurements: Go benchmarks of the
// backend kernels (this package's _test files, named like
// BenchmarkGemm/impl=openblas/n=2000 and reporting GFLAM/s), the dispatch
// benchmark that fixed the OpenBLAS backend's small-size thresholds, the
// kernel table printed by `go run ./bench/tables/kernels`, and, in subfolders
// sorted by kind (README.md lists them): tables/, scale/ runs, peers/
// comparisons and repro/ of the papers. Figures, the commands that produced
// them and the machine they ran on are kept in bench/RESULTS.md.
//
// Run the benchmarks of both backends with
//
//	go test -run '^$' -bench . ./bench/                  # pure Go
//	go test -tags openblas -run '^$' -bench . ./bench/   # pure Go and OpenBLAS
//
// Time-sensitive runs on a shared machine go under
// `flock /tmp/manifold-bench.lock`.
package bench
