package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// env is what a subcommand runs with: its streams, and whether standard
// error is a terminal (for the progress bar).
type env struct {
	stdout, stderr io.Writer
	terminal       bool
}

func main() {
	// The first interrupt cancels the fit (the command then exits with
	// status 1 and "interrupted"); a second one kills the process.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	setMemoryLimit()
	code := run(ctx, os.Args[1:], env{stdout: os.Stdout, stderr: os.Stderr, terminal: isTerminal(os.Stderr)})
	stop()
	os.Exit(code)
}

// run runs the command line args and returns the exit status: 0, or 1
// after one line on standard error saying what went wrong.
func run(ctx context.Context, args []string, e env) (code int) {
	defer func() {
		// A last resort: the engine and the readers return errors for
		// every bad input, so reaching this is a bug. Say so on one line
		// rather than with a goroutine dump.
		if p := recover(); p != nil {
			fmt.Fprintf(e.stderr, "manifold: internal error (a bug, please report it): %s\n", oneLine(fmt.Sprint(p)))
			code = 1
		}
	}()
	if len(args) == 0 {
		fmt.Fprintln(e.stderr, "manifold: no subcommand (want embed, project, neighbors, serve, demo or info; manifold help shows the usage)")
		return 1
	}
	var err error
	switch sub := args[0]; sub {
	case "embed":
		err = cmdEmbed(ctx, args[1:], e)
	case "project":
		err = cmdProject(ctx, args[1:], e)
	case "neighbors":
		err = cmdNeighbors(ctx, args[1:], e)
	case "serve":
		err = cmdServe(ctx, args[1:], e)
	case "demo":
		err = cmdDemo(ctx, args[1:], e)
	case "info":
		err = cmdInfo(args[1:], e)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(e.stdout, usage)
		return 0
	default:
		fmt.Fprintf(e.stderr, "manifold: unknown subcommand %q (want embed, project, neighbors, serve, demo or info)\n", oneLine(sub))
		return 1
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		fmt.Fprintf(e.stderr, "manifold: %s: interrupted\n", args[0])
		return 1
	}
	fmt.Fprintf(e.stderr, "manifold: %s: %s\n", args[0], oneLine(err.Error()))
	return 1
}

// oneLine keeps a message on one line, so every error is exactly one line
// of standard error.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "\r\n", "; ")
	return strings.NewReplacer("\n", "; ", "\r", " ").Replace(s)
}

// newFlagSet returns a flag set for a subcommand that reports errors by
// returning them (never printing usage on its own) and prints the
// subcommand's usage to standard output for -h.
func newFlagSet(name, help string, e env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprint(e.stdout, help)
		fs.SetOutput(e.stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// parseFlags parses args and refuses positional arguments and a flag given
// twice (the flag package lets the last one win silently).
func parseFlags(fs *flag.FlagSet, args []string) error {
	fs.VisitAll(func(f *flag.Flag) { f.Value = &onceValue{Value: f.Value, name: f.Name} })
	if err := fs.Parse(args); err != nil {
		var twice error
		fs.VisitAll(func(f *flag.Flag) {
			if v, ok := f.Value.(*onceValue); ok && v.twice != nil && twice == nil {
				twice = v.twice
			}
		})
		if twice != nil {
			return twice
		}
		return err // for -h, Parse has printed the usage (once)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (flags come as -name value)", fs.Arg(0))
	}
	return nil
}

// onceValue is a flag's value that refuses a second Set.
type onceValue struct {
	flag.Value
	name  string
	set   bool
	twice error
}

func (v *onceValue) Set(s string) error {
	if v.set {
		v.twice = fmt.Errorf("-%s given twice (-%s %s after -%s %s): give each flag once", v.name, v.name, s, v.name, v.Value.String())
		return v.twice
	}
	v.set = true
	return v.Value.Set(s)
}

// String is the value's; "" for the zero onceValue that flag's
// PrintDefaults makes to find default values.
func (v *onceValue) String() string {
	if v == nil || v.Value == nil {
		return ""
	}
	return v.Value.String()
}

// IsBoolFlag keeps -name (without a value) working for boolean flags.
func (v *onceValue) IsBoolFlag() bool {
	b, ok := v.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// Get passes flag.Getter through.
func (v *onceValue) Get() any {
	if g, ok := v.Value.(flag.Getter); ok {
		return g.Get()
	}
	return v.Value.String()
}

// setFlags returns the names of the flags set on the command line.
func setFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// isTerminal reports whether f is a character device: a terminal, as far
// as the standard library can tell without a system call per platform
// (/dev/null is one too, where drawing a progress bar is harmless).
func isTerminal(f *os.File) bool {
	if os.Getenv("TERM") == "dumb" {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

const usage = `manifold: manifold learning and dimensionality reduction.

usage:
  manifold embed   -method NAME [-in FILE] [-labels FILE] [-supervised] [-dim D] [-k K | -eps E]
                   [-alpha A] [-landmarks L [-landmark-k K] [-landmark-choice C]] [-tangent-dim T]
                   [-disconnected error|connect|largest]
                   [-supervised-geodesic constant|join] [-weight heat|binary] [-float32] [-max-iter N]
                   [-eigensolver auto|dense|lanczos|uncertified|lobpcg]
                   [-neighbors auto|exact|approx [-search-width W] [-refine W] [-index-k K] | -graph FILE.mtx]
                   [-seed S] [-out FILE|-|/dev/null] [-model FILE] [-plot FILE.png] [-report FILE.json]
                   [-cpuprofile FILE] [-memprofile FILE] [-max-memory SIZE] [-quiet]
  manifold project -model FILE -in FILE [-out FILE]
  manifold neighbors -k K [-neighbors auto|exact|approx [-refine W]] [-float32] [-max-memory SIZE] -in FILE -out GRAPH.mtx [-report FILE.json]
  manifold serve   -model [NAME=]FILE ... [-addr 127.0.0.1:8080]
  manifold demo    [-method NAME] [-plot FILE.png]
  manifold info

manifold SUBCOMMAND -h describes the flags of a subcommand; go doc
github.com/manifoldlab/manifold/cmd/manifold is the full manual.
`
