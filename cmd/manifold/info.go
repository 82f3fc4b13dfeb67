package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"text/tabwriter"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/engine"
)

const infoHelp = `usage: manifold info

Prints the version, the linear algebra backend and its configuration, the
thread budget and the methods of this build.

`

func cmdInfo(args []string, e env) error {
	fs := newFlagSet("info", infoHelp, e)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	d := backend.Info()
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	row := func(k string, v any) { fmt.Fprintf(tw, "%s\t%v\n", k, v) }
	row("version", engine.Version())
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision", "vcs.time", "vcs.modified", "-tags", "CGO_ENABLED":
				row(s.Key, s.Value)
			}
		}
	}
	row("go", runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH)
	row("backend", d.Backend)
	row("blas config", d.Config)
	row("blas threads", d.BLASThreads)
	row("concurrent blas calls", d.MaxConcurrentCalls)
	row("GOMAXPROCS", d.GOMAXPROCS)
	row("CPUs", d.NumCPU)
	row("methods", methodNames())
	return tw.Flush()
}
