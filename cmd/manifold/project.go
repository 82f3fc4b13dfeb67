package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/internal/dataio"
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
	mf, err := os.Open(modelPath)
	if err != nil {
		return fileErr(modelPath, err)
	}
	model, err := engine.Load(mf)
	mf.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", modelPath, err)
	}
	x, err := dataio.ReadMatrixFile(in)
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
	return writeOut(out, y, e)
}
