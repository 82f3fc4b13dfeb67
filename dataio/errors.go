package dataio

import (
	"errors"
	"fmt"
)

var (
	// ErrFormat is wrapped by every error about a malformed file: a cell
	// that is not a number, a ragged row, a truncated or inconsistent .npy.
	ErrFormat = errors.New("dataio: malformed input")
	// ErrUnsupported is wrapped by every error about a well-formed input this
	// package does not read: a complex dtype, an unknown file extension.
	ErrUnsupported = errors.New("dataio: unsupported input")
	// ErrEmpty is wrapped by the error about a well-formed file without
	// data: no rows, or an array with a zero dimension.
	ErrEmpty = errors.New("dataio: no data")
)

// Error is the error the readers return for a malformed or unsupported
// input. Its message names the place (line and column, header field) and
// the problem, without a package prefix, so a caller can put the file name
// in front: "data.csv: line 3, column 2: "abc" is not a number".
type Error struct {
	Kind   error // ErrFormat, ErrUnsupported or ErrEmpty
	Line   int   // 1-based line of a text file; 0 when not applicable
	Column int   // 1-based field of a CSV line; 0 when not applicable
	Msg    string
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// Unwrap returns Kind, so errors.Is(err, ErrFormat) works.
func (e *Error) Unwrap() error { return e.Kind }

func formatErr(line, col int, format string, a ...any) error {
	return &Error{Kind: ErrFormat, Line: line, Column: col, Msg: fmt.Sprintf(format, a...)}
}

func unsupported(format string, a ...any) error {
	return &Error{Kind: ErrUnsupported, Msg: fmt.Sprintf(format, a...)}
}

func emptyErr(format string, a ...any) error {
	return &Error{Kind: ErrEmpty, Msg: fmt.Sprintf(format, a...)}
}
