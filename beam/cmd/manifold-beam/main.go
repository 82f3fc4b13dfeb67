// Command manifold-beam runs the manifold engine on Apache Beam: it maps
// sharded rows with a saved model (project) and fits a model on rows too
// many for one machine (fit). The same binary runs locally on the prism
// runner and submits to Flink, Spark or Dataflow (--runner and the runner's
// flags; see the module's README).
//
//	manifold-beam project -model FILE -input GLOB [-id NAME] -output DIR [-format csv|npy|parquet] [--runner …]
//	manifold-beam fit -method pca -input GLOB [-id NAME] [-dim D] -model FILE [-dead DIR] [--runner …]
//	manifold-beam fit -method lsi -input GLOB [-id NAME] [-dim D] [-solver auto|gram|randomized] [-power Q] [-oversample P] [-seed S] -model FILE [-dead DIR] [--runner …]
//	manifold-beam fit -method lda -label NAME -input GLOB [-id NAME] [-dim D] -model FILE [-dead DIR] [--runner …]
//	manifold-beam fit -method METHOD -sample N [-stratify NAME] -input GLOB [-dim D] [-k K] [-landmarks L] [-seed S] -model FILE [--runner …]
//	manifold-beam fit -method lda|isoprojection|lpp|npe|oip -label NAME -sample N [-stratify NAME] -input GLOB … -model FILE
//
// Every subcommand takes -width D: rows without exactly D features are
// dead letters (without it, rows of differing widths fail a fit).
// fit -method pca, -method lsi and -method lda fold every row into
// distributed statistics (lsi: the uncentred term-space XᵀX for rows of at
// most 4096 features, past that — or with -solver randomized — the
// randomized range finder of Halko, Martinsson & Tropp (SIAM Review 2011),
// -power + 2 passes over the rows with a basis of -dim + -oversample
// columns; lda: the class is the column -label); any other
// method (isomap, landmark-isomap, lle, landmark-lle, ltsa, laplacian,
// mds, tdpm, lpp, npe, isoprojection, oip, …: the -method flag's help lists
// them; pca too with -sample) is fitted by one worker
// on a uniform sample of -sample rows (default 5000), and project then
// maps every row with the model. With -stratify NAME the sample is
// stratified by the CSV header's column NAME (any text; not a feature):
// every stratum gets one row, the rest is shared in proportion to the
// strata's sizes (largest remainders), each stratum's rows of least hash
// key — the same sample however the input is sharded, for a given -seed.
// With -label NAME a sample fit is supervised: the sample keeps each row's
// class (an integer) and lda, or the supervised graph of isoprojection,
// lpp, npe or oip, is fitted with them; -stratify then names the same
// column (the strata are the classes). -method lda with -label alone folds
// every row (distributed); with -sample or -stratify it fits on a sample.
//
// Inputs ending in .npy are NumPy shards, inputs ending in .parquet are
// Parquet files (columns id, a UTF8 string, and x, the features as a
// repeated DOUBLE; read by Beam's parquetio; with -label or -stratify the
// column of that name too, read by parquet-go's column reader, and x may be
// a list column; with -id NAME the ID is the column NAME, a string or an
// integer, and every other column but the label is a feature, a number or
// a list of numbers, in schema order); anything else is CSV (gzip
// by the .gz suffix). fit reads -format, when given, as its input's format
// (for a glob of another suffix; a suffix that says otherwise is refused);
// project's -format is its output's: -format parquet writes
// part-NNNNN.parquet (columns id and y, the coordinates as a repeated
// DOUBLE). Errors: exit status 1 and one line on standard error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	manifoldbeam "github.com/manifoldlab/manifold/beam"
)

const usage = `usage:
  manifold-beam project -model FILE -input GLOB [-id NAME] -output DIR [-format csv|npy|parquet] [-block B] [-parallel P] [--runner prism|flink|spark|dataflow …]
  manifold-beam fit -method pca -input GLOB [-id NAME] [-dim D] -model FILE [-dead DIR] [--runner …]
  manifold-beam fit -method lsi -input GLOB [-id NAME] [-dim D] [-solver auto|gram|randomized] [-power Q] [-oversample P] [-seed S] -model FILE [-dead DIR] [--runner …]
  manifold-beam fit -method lda -label NAME -input GLOB [-id NAME] [-dim D] -model FILE [-dead DIR] [--runner …]
  manifold-beam fit -method METHOD [-sample N] [-stratify NAME] -input GLOB [-id NAME] [-dim D] [-k K] [-landmarks L] [-seed S] -model FILE [-dead DIR] [--runner …]
  manifold-beam fit -method lda|isoprojection|lpp|npe|oip -label NAME [-sample N] [-stratify NAME] -input GLOB … -model FILE
  every subcommand: [-width D] (rows without D features are dead letters)
`

// errUsage marks command-line mistakes.
var errUsage = errors.New("usage")

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "manifold-beam:", strings.ReplaceAll(err.Error(), "\n", " "))
		os.Exit(1)
	}
}

func run(args []string, stderr io.Writer) error {
	// Workers started by a remote runner re-run this binary with worker
	// flags and no subcommand: beam.Init hands control to the harness.
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		flag.CommandLine.Parse(args)
		beam.Init()
		return fmt.Errorf("%w: no subcommand\n%s", errUsage, usage)
	}
	cmd, rest := args[0], args[1:]
	fs := flag.NewFlagSet("manifold-beam "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		model  = fs.String("model", "", "model file (project: read; fit: written); any Beam filesystem path")
		input  = fs.String("input", "", "input shards: a glob of .csv, .csv.gz, .npy or .parquet files (parquet: columns id and x, repeated double)")
		id     = fs.String("id", "", "CSV: the header's ID column (without it: FILE:LINE); Parquet: the ID column, a string or an integer, the other columns the features (without it: columns id and x)")
		output = fs.String("output", "", "project: output directory (part-*.csv, dead-letters-*.csv, _SUCCESS)")
		block  = fs.Int("block", manifoldbeam.DefaultBlock, "project: rows a Transform call")
		par    = fs.Int("parallel", 0, "project: blocks a worker's DoFn transforms at once in a bundle (0: the number of CPUs on the prism runner, which runs a stage as one bundle; 1 on the others, which run a bundle per core)")
		format = fs.String("format", "csv", "project: output format, csv (part-*.csv: id,y1,…), npy (part-*.npy with part-*.ids.csv) or parquet (part-*.parquet: id, y repeated double); fit: the input's format (default: from -input's suffix, which must not say otherwise)")
		method = fs.String("method", "", "fit: method, one of "+strings.Join(manifoldbeam.SampleMethods(), ", ")+" (pca, lsi and lda fitted distributed, or on a sample with -sample; the others on a sample)")
		label  = fs.String("label", "", "fit -method lda, or a supervised fit on a sample ("+strings.Join(manifoldbeam.SupervisedMethods(), ", ")+"): the column of the integer class labels (CSV header or Parquet column)")
		width  = fs.Int("width", 0, "rows without exactly this many features are dead letters (0: not checked; a fit then fails on rows of differing widths)")
		dim    = fs.Int("dim", 0, "fit: output dimension (0: 2; lda: classes − 1)")
		dead   = fs.String("dead", "", "fit: directory for the dead letters (rows left out)")
		sample = fs.Int("sample", 0, "fit: rows in the sample a method other than pca is fitted on (0: 5000); with pca, fit on a sample too")
		k      = fs.Int("k", 0, "fit on a sample: neighbours (0: the method's default)")
		lms    = fs.Int("landmarks", 0, "fit on a sample: landmark-isomap's landmarks (0: its default)")
		seed   = fs.Uint64("seed", 1, "fit on a sample: the sample's and the method's seed")
		solver = fs.String("solver", manifoldbeam.LSIAuto, "fit -method lsi: auto (gram up to 4096 terms, randomized past it: the width of the first row of the first shard decides), gram (the exact D×D XᵀX) or randomized (Halko, Martinsson & Tropp 2011: power + 2 passes)")
		power  = fs.Int("power", manifoldbeam.DefaultLSIPower, "fit -method lsi, randomized: power iterations q, one pass over the rows each (0: none)")
		over   = fs.Int("oversample", manifoldbeam.DefaultLSIOversample, "fit -method lsi, randomized: oversampling p, the basis has dim + p columns")
		strat  = fs.String("stratify", "", "fit on a sample: the column of the strata (CSV header or Parquet column; with -label, the same column); the sample is stratified (proportional, at least one row a stratum)")
	)
	own, beamArgs := splitArgs(fs, rest)
	if err := fs.Parse(own); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	// The Beam SDK's own flags (--runner, --endpoint, --environment_type,
	// --project, …) live on the default FlagSet, beside the worker's --id.
	if err := flag.CommandLine.Parse(beamArgs); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	beam.Init()
	if *runners.Runner == "" {
		*runners.Runner = "prism"
	}
	if *input == "" || *model == "" {
		return fmt.Errorf("%w: -input and -model are required\n%s", errUsage, usage)
	}
	p, s := beam.NewPipelineWithRoot()
	if *method == "lda" && *label == "" && cmd == "fit" {
		return fmt.Errorf("%w: fit -method lda needs -label NAME, the column of the classes", errUsage)
	}
	if *label != "" && (cmd != "fit" || (*method != "lda" && !slices.Contains(manifoldbeam.SupervisedMethods(), *method))) {
		return fmt.Errorf("%w: -label NAME goes with fit -method lda or a supervised fit on a sample (%s), and only there",
			errUsage, strings.Join(manifoldbeam.SupervisedMethods(), ", "))
	}
	if *label != "" && *label == *id {
		return fmt.Errorf("%w: -label and -id name the same column %q", errUsage, *id)
	}
	if *strat != "" && (cmd != "fit" || *method == "lsi") {
		return fmt.Errorf("%w: -stratify NAME goes with fit on a sample (not project or lsi)", errUsage)
	}
	if *strat != "" && *label != "" && *strat != *label {
		return fmt.Errorf("%w: with -label, -stratify must name the same column (a supervised sample is stratified by class): %q and %q", errUsage, *label, *strat)
	}
	if *strat != "" && *strat == *id {
		return fmt.Errorf("%w: -stratify and -id name the same column %q", errUsage, *id)
	}
	lsiFlag, formatSet := false, false
	fs.Visit(func(f *flag.Flag) {
		lsiFlag = lsiFlag || f.Name == "solver" || f.Name == "power" || f.Name == "oversample"
		formatSet = formatSet || f.Name == "format"
	})
	if lsiFlag && (cmd != "fit" || *method != "lsi" || *sample != 0) {
		return fmt.Errorf("%w: -solver, -power and -oversample go with fit -method lsi", errUsage)
	}
	if *power < 0 {
		return fmt.Errorf("%w: -power %d", errUsage, *power)
	}
	if *width < 0 {
		return fmt.Errorf("%w: -width %d", errUsage, *width)
	}
	labelCol := *label
	if *strat != "" {
		labelCol = *strat // the stratum travels as the row's label
	}
	inFormat, err := inputFormat(cmd, *input, *format, formatSet)
	if err != nil {
		return err
	}
	var rows beam.PCollection
	switch inFormat {
	case "npy":
		if *id != "" || labelCol != "" {
			return fmt.Errorf("%w: -id, -label and -stratify apply to CSV and Parquet input, not .npy", errUsage)
		}
		rows = manifoldbeam.ReadNPY(s, *input)
	case "parquet":
		rows = manifoldbeam.ReadParquetColumns(s, *input, *id, labelCol)
	default:
		rows = manifoldbeam.ReadLabeledCSV(s, *input, *id, labelCol)
	}
	if *width > 0 {
		rows = manifoldbeam.RequireWidth(s, rows, *width)
	}
	switch cmd {
	case "project":
		if *output == "" {
			return fmt.Errorf("%w: project needs -output DIR", errUsage)
		}
		parallel := *par
		if parallel < 0 {
			return fmt.Errorf("%w: -parallel %d: want 0 (automatic) or a number of blocks ≥ 1", errUsage, parallel)
		}
		if parallel == 0 {
			parallel = 1
			if *runners.Runner == "prism" {
				parallel = runtime.NumCPU()
			}
		}
		emb, dl := manifoldbeam.Project(s, *model, rows, manifoldbeam.ProjectOptions{Block: *block, Parallel: parallel})
		switch *format {
		case "csv":
			manifoldbeam.WriteCSV(s, *output, emb, dl)
		case "npy":
			manifoldbeam.WriteNPY(s, *output, emb, dl)
		case "parquet":
			manifoldbeam.WriteParquet(s, *output, emb, dl)
		default:
			return fmt.Errorf("%w: -format %q: want csv, npy or parquet", errUsage, *format)
		}
	case "fit":
		var dl beam.PCollection
		switch {
		case *method == "lda" && *sample == 0 && *strat == "":
			dl = manifoldbeam.FitLDA(s, rows, *dim, *model)
		case *method == "lsi" && *sample == 0:
			opts := manifoldbeam.LSIOptions{Dim: *dim, Solver: *solver, Power: *power, Oversample: *over, Seed: *seed}
			if opts.Power == 0 {
				opts.Power = -1 // the library's 0 is its default
			}
			if err := manifoldbeam.CheckLSIOptions(opts); err != nil {
				return fmt.Errorf("%w: %v", errUsage, err)
			}
			if opts.Solver == manifoldbeam.LSIAuto {
				w, err := manifoldbeam.InputWidth(context.Background(), *input, *id, labelCol)
				if err != nil {
					fmt.Fprintf(stderr, "manifold-beam: -solver auto: %v; the gram solver is used\n", err)
				}
				opts.Terms = w
			}
			dl = manifoldbeam.FitLSIWith(s, rows, opts, *model)
		case *method == "pca" && *sample == 0 && *strat == "":
			pcaDim := *dim
			if pcaDim == 0 {
				pcaDim = 2
			}
			dl = manifoldbeam.FitPCA(s, rows, pcaDim, *model)
		default:
			fit := manifoldbeam.SampleFit{Method: *method, Dim: *dim, K: *k, Landmarks: *lms, Size: *sample, Seed: *seed,
				Stratify: *strat != "", Supervised: *label != ""}
			if err := manifoldbeam.CheckSampleFit(fit); err != nil {
				return fmt.Errorf("%w: fit: %v", errUsage, err)
			}
			dl = manifoldbeam.FitSample(s, rows, fit, *model)
		}
		if *dead != "" {
			manifoldbeam.WriteCSV(s, *dead, beam.PCollection{}, dl)
		}
	default:
		return fmt.Errorf("%w: unknown subcommand %q\n%s", errUsage, cmd, usage)
	}
	return beamx.Run(context.Background(), p)
}

// splitArgs separates this command's flags (those fs defines) from the
// Beam SDK's flags, which pass through to the default FlagSet. A Beam flag
// takes the next argument as its value unless written --name=value or
// followed by another flag.
func splitArgs(fs *flag.FlagSet, args []string) (own, rest []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name := strings.TrimLeft(a, "-")
		if a == name || name == "" {
			own = append(own, a) // a positional argument: fs.Parse reports it
			continue
		}
		name, _, hasValue := strings.Cut(name, "=")
		dst := &rest
		if fs.Lookup(name) != nil {
			dst = &own
		}
		*dst = append(*dst, a)
		if !hasValue && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			*dst = append(*dst, args[i+1])
			i++
		}
	}
	return own, rest
}

// suffixFormat is the format an input glob's suffix names: npy, parquet,
// csv (.csv or .csv.gz), or "" for another suffix.
func suffixFormat(glob string) string {
	switch {
	case strings.HasSuffix(glob, ".npy"):
		return "npy"
	case strings.HasSuffix(glob, ".parquet"):
		return "parquet"
	case strings.HasSuffix(glob, ".csv"), strings.HasSuffix(glob, ".csv.gz"):
		return "csv"
	}
	return ""
}

// inputFormat is the format the input shards are read in. project takes
// it from the glob's suffix (CSV for another suffix): its -format is the
// output's. fit writes a model, so its -format, when given, is the
// input's: it decides for a glob of another suffix, and a glob whose
// suffix names another format is refused.
func inputFormat(cmd, glob, format string, formatSet bool) (string, error) {
	suf := suffixFormat(glob)
	if cmd != "fit" || !formatSet {
		if suf == "" {
			suf = "csv"
		}
		return suf, nil
	}
	switch format {
	case "csv", "npy", "parquet":
	default:
		return "", fmt.Errorf("%w: -format %q: want csv, npy or parquet", errUsage, format)
	}
	if suf != "" && suf != format {
		return "", fmt.Errorf("%w: fit -format %s, but -input %q names %s shards (fit reads -format as its input's format; drop it or make the two agree)", errUsage, format, glob, suf)
	}
	return format, nil
}
