package dataio

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
)

// gzipMagic starts every gzip stream (RFC 1952).
var gzipMagic = []byte{0x1f, 0x8b}

// source returns a buffered reader of r's content, decompressed when r
// starts with the gzip magic bytes, that stops with ctx and after
// lim.maxInput() bytes of content or past lim.maxRatio() of expansion.
// Errors of the decompressor are format
// errors; close releases the decompressor.
func source(ctx context.Context, r io.Reader, lim Limits) (br *bufio.Reader, close func(), err error) {
	raw := &guard{ctx: ctx, r: r}
	br = bufio.NewReaderSize(raw, 1<<16)
	magic, _ := br.Peek(2)
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if !bytes.Equal(magic, gzipMagic) {
		raw.max = lim.maxInput()
		return br, func() {}, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, formatErr(0, 0, "gzip: %v", err)
	}
	out := &guard{ctx: ctx, r: gzipErrs{zr}, max: lim.maxInput(), in: &raw.n, ratio: lim.maxRatio()}
	return bufio.NewReaderSize(out, 1<<16), func() { zr.Close() }, nil
}

// gzipErrs turns the decompressor's errors (corrupt or truncated stream)
// into format errors; io.EOF passes through.
type gzipErrs struct{ r io.Reader }

func (g gzipErrs) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err != nil && err != io.EOF {
		var de *Error
		if !errors.As(err, &de) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			err = formatErr(0, 0, "gzip: %v", err)
		}
	}
	return n, err
}

// lineReader yields the lines of a text file without their line ending
// ("\n" or "\r\n"), numbered from 1, with a leading UTF-8 byte order mark
// removed. A line is held in memory once, however long it is.
type lineReader struct {
	r    *bufio.Reader
	max  int // longest line accepted, in bytes
	num  int
	long []byte // accumulates a line longer than the buffer
}

// next returns the next line and its number; io.EOF after the last line.
// The slice is valid until the next call.
func (l *lineReader) next() ([]byte, int, error) {
	line, err := l.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		l.long = append(l.long[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(l.long) > l.max {
				return nil, 0, &Error{Kind: ErrLimit, Line: l.num + 1, Msg: fmt.Sprintf("line longer than %s (the limit)", fmtBytes(int64(l.max)))}
			}
			line, err = l.r.ReadSlice('\n')
			l.long = append(l.long, line...)
		}
		line = l.long
	}
	if err != nil && err != io.EOF {
		return nil, 0, err
	}
	if err == io.EOF && len(line) == 0 {
		return nil, 0, io.EOF
	}
	l.num++
	line = bytes.TrimSuffix(line, []byte{'\n'})
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if len(line) > l.max {
		return nil, 0, &Error{Kind: ErrLimit, Line: l.num, Msg: fmt.Sprintf("line longer than %s (the limit)", fmtBytes(int64(l.max)))}
	}
	if l.num == 1 {
		line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
	}
	return line, l.num, nil
}

// trimSpace removes ASCII spaces and tabs at both ends.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// excerpt quotes a field for an error message, shortened to 40 bytes.
func excerpt(b []byte) string {
	const max = 40
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
