package main

import (
	"context"
	"fmt"

	"gonum.org/v1/plot/vg/draw"
)

const demoHelp = `usage: manifold demo [-method NAME] [-plot FILE.png]

Embeds the built-in 2000-point swiss roll (no files needed), draws the 3-D
input beside the embedding, coloured by the roll parameter, and prints the
stage report: stage, predicted flam, seconds, GFLAM/s.

flags:
`

// demoMethod is the demo's default method. While the engine lacks it the
// demo falls back to demoFallback and says so.
const (
	demoMethod   = "isomap"
	demoFallback = "pca"
)

func cmdDemo(ctx context.Context, args []string, e env) error {
	var name, plotPath, plotSize string
	var quiet bool
	fs := newFlagSet("demo", demoHelp, e)
	fs.StringVar(&name, "method", "", "the method (default "+demoMethod+"): "+methodNames())
	fs.StringVar(&plotPath, "plot", "manifold-demo.png", "write the picture to `FILE.png`")
	fs.StringVar(&plotSize, "plot-size", "1400x600", "size of the picture in pixels, `WxH`")
	fs.BoolVar(&quiet, "quiet", false, "no progress bar")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkPNG(plotPath); err != nil {
		return err
	}
	w, h, err := parseSize(plotSize)
	if err != nil {
		return err
	}
	note := ""
	if name == "" {
		name = demoMethod
		if m, _ := lookupMethod(demoMethod); m == nil {
			name = demoFallback
			note = fmt.Sprintf(" (%s is not in this build yet)", demoMethod)
		}
	}
	m, err := lookupMethod(name)
	if err != nil {
		return err
	}
	x, t := swissRoll(demoPoints, demoSeed)
	p := params{}
	if m.NeedsLabels {
		p.Labels, _ = rollClasses(t, 6)
	}
	bar := newProgress(e.stderr, e.terminal && !quiet)
	p.Options.Progress = bar.update
	model, err := m.fit(ctx, p, x)
	bar.finish()
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("default data (%d-point swiss roll): %w", demoPoints, err)
	}
	rep := model.Report()
	y := model.Embedding()
	title := describe(rep)
	if err := checkFinite(y); err != nil {
		return err
	}
	if err := writePNG(plotPath, w, h, func(c draw.Canvas) { demoPicture(c, x, t, y, title) }); err != nil {
		return err
	}
	_, d := x.Dims()
	fmt.Fprintf(e.stdout, "manifold demo: %s on the %d-point swiss roll (%d features → %d)%s\n\n",
		title, demoPoints, d, model.Dim(), note)
	fmt.Fprint(e.stdout, rep.Table())
	fmt.Fprintf(e.stdout, "\nwrote %s (%d×%d pixels): the 3-D input and its embedding, coloured by the roll parameter\n", plotPath, w, h)
	return nil
}
