package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/engine"
)

const projectHelp = `usage: manifold project -model FILE -in FILE [-out FILE]

Maps new samples (the rows of -in, with the features of the training data)
into the embedding of a model saved by manifold embed -model, and writes
their coordinates to -out (.csv or .npy), or as CSV to standard output.

flags:
`

func cmdProject(ctx context.Context, args []string, e env) error {
	var modelPath, in, out string
	fs := newFlagSet("project", projectHelp, e)
	fs.StringVar(&modelPath, "model", "", "the model `FILE` written by manifold embed -model")
	fs.StringVar(&in, "in", "", "new samples `FILE`: .csv, .csv.gz, .npy, .mtx or .mtx.gz")
	fs.StringVar(&out, "out", "", "write the coordinates to `FILE` (.csv or .npy; - or default: CSV on standard output)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case modelPath == "":
		return errors.New("-model is required (a file written by manifold embed -model)")
	case in == "":
		return errors.New("-in is required (the new samples)")
	}
	if err := checkOut(out); err != nil {
		return err
	}
	if _, err := dataio.InputFormat(in); err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	limit := budget(0, false)
	model, err := loadModel(ctx, modelPath, limit)
	if err != nil {
		return err
	}
	x, err := dataio.ReadMatrixFileCtx(ctx, in, readLimits(limit))
	if err != nil {
		return err
	}
	y, err := model.Transform(ctx, x)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		_, d := x.Dims()
		return fmt.Errorf("%s (%d features) with the %s model %s: %w", in, d, model.Method(), modelPath, err)
	}
	if err := checkOutput("the projection", y); err != nil {
		return err
	}
	if toFile(out) {
		var outs outputs
		defer outs.abort()
		if err := outs.write(out, func(p string) error { return dataio.WriteMatrixFile(p, y) }); err != nil {
			return err
		}
		return outs.commit()
	}
	if out == os.DevNull {
		return nil
	}
	if err := dataio.WriteCSV(e.stdout, y); err != nil {
		return fmt.Errorf("standard output: %w", err)
	}
	return nil
}

// loadModel loads the model file at path within the budget (bytes; 0:
// engine.DefaultMaxBytes), stopping with ctx: the open runs in a goroutine
// (a named pipe blocks it until a writer comes), the read checks ctx.
func loadModel(ctx context.Context, path string, budget int64) (engine.Model, error) {
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		ch <- opened{f, err}
	}()
	var o opened
	select {
	case o = <-ch:
	case <-ctx.Done():
		go func() {
			if o := <-ch; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, ctx.Err()
	}
	if o.err != nil {
		return nil, fileErr(path, o.err)
	}
	defer o.f.Close()
	stop := context.AfterFunc(ctx, func() { o.f.SetReadDeadline(time.Now()) })
	defer stop()
	model, err := engine.LoadCtx(ctx, o.f, engine.LoadOptions{MaxBytes: budget})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return model, nil
}
