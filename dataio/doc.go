// Package dataio reads and writes the data files of the manifold command,
// and of any program that wants the same formats:
// dense matrices as CSV (optionally gzip-compressed) and NumPy .npy files,
// sparse matrices as MatrixMarket, and class labels one per line.
//
// Rows are samples and columns are features everywhere. The readers are
// written for untrusted input: every malformed file gives an error (never a
// panic) that wraps ErrFormat or ErrUnsupported and names the place — line
// and column for text, the header field or byte count for .npy — and no
// reader allocates memory on the word of a header: buffers grow with the
// bytes actually read, so a forged shape or size costs nothing (a .npy
// regular file that holds what its header promises is read into storage
// of that size at once, without the copies of growing).
//
// # Formats
//
// CSV (ReadCSV): comma-separated numbers, one sample per line. Blank lines
// and lines starting with '#' (numpy.savetxt's header) are skipped. The
// first remaining line is a header, and skipped, when none of its fields is
// a number (its names may be quoted); after it every field must be a finite
// decimal number, spaces around it allowed,
//
//	[+-] (digits [. [digits]] | . digits) [(e|E) [+-] digits]
//
// and every row must have as many fields as the first data row. Quoted
// numbers, hexadecimal floats ("0x1p-2"), digit separators ("1_000"), Inf
// and NaN are refused with an error naming the field: other readers of the
// same file would read them differently or not at all. Gzip-compressed
// input is recognised by its magic bytes. Cost: one pass, O(bytes).
//
// NPY (ReadNPY): format versions 1.0, 2.0 and 3.0 of the NumPy file format
// (numpy/lib/format.py, NEP 1): any real numeric dtype — bool, int8…int64,
// uint8…uint64, float16, float32, float64 — in either byte order, C or
// Fortran order. Shape () is one 1×1 sample, (n,) is n samples of one
// feature, (n, d) is n×d, and (n, d1, d2, …) is n samples of d1·d2·…
// features in C order (images stored as an n×h×w stack). Complex, object,
// string, structured and extended-precision arrays are refused with
// ErrUnsupported. WriteNPY writes version 1.0, '<f8', C order.
//
// MatrixMarket (ReadMatrixMarket): see that function.
//
// # Bounds and cancellation
//
// Every reader has a Ctx form (ReadCSVCtx, ReadNPYCtx, ReadMatrixMarketCtx,
// ReadLabelsCtx, ReadMatrixFileCtx, ReadLabelsFileCtx) that stops with the
// context's own error once it is done — while a named pipe waits for its
// writer, while a silent writer holds a read, and between chunks of 64 KiB —
// and reads within Limits: the length of a line (DefaultMaxLine unless
// set), the memory the data take once read (checked from the header for
// .npy and MatrixMarket, before a row is added for CSV and labels), and the
// bytes of input after decompression. An input past a limit — /dev/zero, a
// decompression bomb, an endless pipe — gives an error wrapping ErrLimit.
// The plain forms (ReadCSV, …) bound only the line length.
//
// Labels (ReadLabels): one label per line, integers or arbitrary strings,
// surrounding spaces trimmed; trailing blank lines are ignored, a blank
// line before the last label is an error (it would shift every later label
// by one sample).
package dataio
