package dataio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Format is a matrix file format, chosen by file name extension.
type Format int

const (
	CSV          Format = iota + 1 // .csv, .csv.gz
	NPY                            // .npy
	MatrixMarket                   // .mtx, .mtx.gz
)

func (f Format) String() string {
	switch f {
	case CSV:
		return "CSV"
	case NPY:
		return "NPY"
	case MatrixMarket:
		return "MatrixMarket"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// InputFormat returns the format of a matrix file to read, from its
// extension (case-insensitive): .csv and .csv.gz are CSV, .npy is NPY, .mtx
// and .mtx.gz are MatrixMarket. Any other name gives an error wrapping
// ErrUnsupported.
func InputFormat(path string) (Format, error) {
	p := strings.ToLower(path)
	switch {
	case strings.HasSuffix(p, ".csv"), strings.HasSuffix(p, ".csv.gz"):
		return CSV, nil
	case strings.HasSuffix(p, ".npy"):
		return NPY, nil
	case strings.HasSuffix(p, ".mtx"), strings.HasSuffix(p, ".mtx.gz"):
		return MatrixMarket, nil
	}
	return 0, unsupported("unknown input format %q (want .csv, .csv.gz, .npy, .mtx or .mtx.gz)", ext(path))
}

// OutputFormat returns the format of a matrix file to write: .csv or .npy
// (case-insensitive). Any other name gives an error wrapping ErrUnsupported.
func OutputFormat(path string) (Format, error) {
	p := strings.ToLower(path)
	switch {
	case strings.HasSuffix(p, ".csv"):
		return CSV, nil
	case strings.HasSuffix(p, ".npy"):
		return NPY, nil
	}
	return 0, unsupported("unknown output format %q (want .csv or .npy)", ext(path))
}

// ext returns the extension of a file name, with ".gz" kept with the one
// before it; "" becomes "no extension".
func ext(path string) string {
	base := path[strings.LastIndexAny(path, `/\`)+1:]
	i := strings.LastIndexByte(base, '.')
	if i <= 0 {
		return "no extension"
	}
	if strings.EqualFold(base[i:], ".gz") {
		if j := strings.LastIndexByte(base[:i], '.'); j > 0 {
			i = j
		}
	}
	return base[i:]
}

// ReadMatrixFile reads the matrix in the file at path, in the format its
// extension names (InputFormat): a *mat.Dense from CSV or NPY, a sparse
// matrix from MatrixMarket. Every error starts with path. It is
// ReadMatrixFileCtx with no context and the zero Limits.
func ReadMatrixFile(path string) (mat.Matrix, error) {
	return ReadMatrixFileCtx(context.Background(), path, Limits{})
}

// ReadMatrixFileCtx is ReadMatrixFile within lim, stopping with ctx's error
// (unwrapped, so errors.Is(err, context.Canceled) holds) once ctx is done:
// while the file is opened (a named pipe with no writer yet), while it is
// read (a pipe whose writer is silent) and between chunks of 64 KiB.
func ReadMatrixFileCtx(ctx context.Context, path string, lim Limits) (mat.Matrix, error) {
	f, err := InputFormat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var m mat.Matrix
	err = readFile(ctx, path, func(r io.Reader) error {
		var err error
		switch f {
		case CSV:
			m, err = ReadCSVCtx(ctx, r, lim)
		case NPY:
			m, err = ReadNPYCtx(ctx, r, lim)
		case MatrixMarket:
			m, err = ReadMatrixMarketCtx(ctx, r, lim)
		}
		return err
	})
	return m, err
}

// ReadNPY32File reads the .npy file at path into float32 (ReadNPY32Ctx),
// within lim and ctx as ReadMatrixFileCtx. Every error starts with path.
func ReadNPY32File(ctx context.Context, path string, lim Limits) (data []float32, rows, cols int, err error) {
	err = readFile(ctx, path, func(r io.Reader) error {
		var err error
		data, rows, cols, err = ReadNPY32Ctx(ctx, r, lim)
		return err
	})
	return data, rows, cols, err
}

// NPYShapeFile returns the shape of the array in the .npy file at path
// (ReadNPYShapeCtx), reading its header only. Every error starts with
// path.
func NPYShapeFile(ctx context.Context, path string) (rows, cols int, err error) {
	err = readFile(ctx, path, func(r io.Reader) error {
		var err error
		rows, cols, err = ReadNPYShapeCtx(ctx, r)
		return err
	})
	return rows, cols, err
}

// ReadLabelsFile reads the labels in the file at path (ReadLabels). Every
// error starts with path. It is ReadLabelsFileCtx with no context and the
// zero Limits.
func ReadLabelsFile(path string) (*Labels, error) {
	return ReadLabelsFileCtx(context.Background(), path, Limits{})
}

// ReadLabelsFileCtx is ReadLabelsFile within lim, stopping with ctx's
// error once ctx is done (as ReadMatrixFileCtx).
func ReadLabelsFileCtx(ctx context.Context, path string, lim Limits) (*Labels, error) {
	var l *Labels
	err := readFile(ctx, path, func(r io.Reader) error {
		var err error
		l, err = ReadLabelsCtx(ctx, r, lim)
		return err
	})
	return l, err
}

// readFile opens path and hands it to read; errors are prefixed with path
// once (an *fs.PathError's own "open path" is dropped). ctx's own error
// comes back as it is.
func readFile(ctx context.Context, path string, read func(io.Reader) error) error {
	f, stop, err := open(ctx, path)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return err
		}
		return pathErr(path, err)
	}
	defer f.Close()
	defer stop()
	if err := read(f); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		return pathErr(path, err)
	}
	return nil
}

func pathErr(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// WriteMatrixFile writes m to the file at path in the format its extension
// names (OutputFormat). A file left incomplete by an error is removed.
// Every error starts with path.
func WriteMatrixFile(path string, m mat.Matrix) error {
	format, err := OutputFormat(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	f, err := os.Create(path)
	if err != nil {
		return pathErr(path, err)
	}
	if format == NPY {
		err = WriteNPY(f, m)
	} else {
		err = WriteCSV(f, m)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return pathErr(path, err)
	}
	return nil
}
