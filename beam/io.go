package manifoldbeam

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/google/uuid"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/dataio"
)

// ErrInput is returned (wrapped) when an input shard as a whole cannot be
// read: a missing ID column, a malformed .npy header. A single bad row is
// never an error: it becomes a dead letter.
var ErrInput = errors.New("manifold-beam: input")

// ErrOutput is returned (wrapped) when the output cannot be written or
// committed.
var ErrOutput = errors.New("manifold-beam: output")

// SuccessFile is written into the output directory last, after every
// output file has its final name: its presence marks a complete output.
const SuccessFile = "_SUCCESS"

func init() {
	register.DoFn3x1[context.Context, fileio.ReadableFile, func(Row), error](&readCSVFn{})
	register.DoFn3x1[context.Context, fileio.ReadableFile, func(Row), error](&readNPYFn{})
	register.DoFn3x1[context.Context, Embedded, func(string), error](&writeEmbFn{})
	register.DoFn3x1[context.Context, DeadLetter, func(string), error](&writeDeadFn{})
	register.DoFn3x1[context.Context, Embedded, func(string), error](&writeNPYFn{})
	register.DoFn3x1[context.Context, int, func(*string) bool, error](&commitFn{})
	register.Emitter1[Row]()
	register.Emitter1[string]()
	register.Iter1[string]()
}

// ReadCSV reads the CSV shards matching glob (any registered filesystem;
// .gz shards are decompressed) as Rows. With idColumn set, every shard
// starts with a header row, the ID is that column and the features are
// the other columns in header order; without it, every line is features
// and the ID is "FILE:LINE" (the shard's path and 1-based line number).
// Blank lines and lines starting with '#' are skipped. A field that does
// not parse as a number makes the row a dead letter (Row.Err) with its ID.
//
// Shards are the unit of parallelism (a shard is read by one worker, in a
// stream); textio is not used because it carries neither line numbers nor
// the header into split reads.
func ReadCSV(s beam.Scope, glob, idColumn string) beam.PCollection {
	return ReadLabeledCSV(s, glob, idColumn, "")
}

// ReadLabeledCSV is ReadCSV with the class label of every row in the
// header's column labelColumn (Row.Label; not a feature): the shards then
// start with a header row even without idColumn.
func ReadLabeledCSV(s beam.Scope, glob, idColumn, labelColumn string) beam.PCollection {
	s = s.Scope("manifold.ReadCSV")
	files := fileio.ReadMatches(s, fileio.MatchFiles(s, glob))
	return beam.ParDo(s, &readCSVFn{IDColumn: idColumn, LabelColumn: labelColumn}, files)
}

type readCSVFn struct {
	IDColumn    string
	LabelColumn string
}

func (f *readCSVFn) ProcessElement(ctx context.Context, file fileio.ReadableFile, emit func(Row)) error {
	name := file.Metadata.Path
	r, err := file.Open(ctx)
	if err != nil {
		return fmt.Errorf("%w %s: %v", ErrInput, name, err)
	}
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 256<<20)
	idCol, labCol := -1, -1
	header := f.IDColumn != "" || f.LabelColumn != ""
	line := 0
	for sc.Scan() {
		line++
		if line%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		fields := strings.Split(text, ",")
		if header {
			header = false
			for want, col := range map[string]*int{f.IDColumn: &idCol, f.LabelColumn: &labCol} {
				if want == "" {
					continue
				}
				for j, h := range fields {
					if strings.TrimSpace(h) == want {
						*col = j
						break
					}
				}
				if *col < 0 {
					return fmt.Errorf("%w %s: header (line %d) has no column %q", ErrInput, name, line, want)
				}
			}
			continue
		}
		emit(parseRow(name, line, fields, idCol, labCol))
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%w %s after line %d: %v", ErrInput, name, line, err)
	}
	return nil
}

// parseRow turns one CSV line into a Row; idCol < 0 means the ID is the
// file and line, labCol ≥ 0 the column of the label.
func parseRow(name string, line int, fields []string, idCol, labCol int) Row {
	r := Row{ID: name + ":" + strconv.Itoa(line)}
	if idCol >= 0 {
		if idCol >= len(fields) {
			r.Err = fmt.Sprintf("%s line %d: %d field(s), no ID column (column %d)", name, line, len(fields), idCol+1)
			return r
		}
		r.ID = strings.TrimSpace(fields[idCol])
	}
	if labCol >= 0 {
		if labCol >= len(fields) {
			r.Err = fmt.Sprintf("%s line %d: %d field(s), no label column (column %d)", name, line, len(fields), labCol+1)
			return r
		}
		r.Label = strings.TrimSpace(fields[labCol])
	}
	r.X = make([]float64, 0, len(fields))
	for j, fld := range fields {
		if j == idCol || j == labCol {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(fld), 64)
		if err != nil {
			return Row{ID: r.ID, Label: r.Label, Err: fmt.Sprintf("%s line %d field %d: %v", name, line, j+1, err)}
		}
		r.X = append(r.X, v)
	}
	return r
}

// ReadNPY reads the NumPy .npy shards matching glob (2-D, any numeric
// dtype) as Rows with IDs "FILE:ROW" (0-based row index). A shard is read
// whole by one worker, so memory is bounded by the largest shard.
func ReadNPY(s beam.Scope, glob string) beam.PCollection {
	s = s.Scope("manifold.ReadNPY")
	files := fileio.ReadMatches(s, fileio.MatchFiles(s, glob))
	return beam.ParDo(s, &readNPYFn{}, files)
}

type readNPYFn struct{}

func (f *readNPYFn) ProcessElement(ctx context.Context, file fileio.ReadableFile, emit func(Row)) error {
	name := file.Metadata.Path
	r, err := file.Open(ctx)
	if err != nil {
		return fmt.Errorf("%w %s: %v", ErrInput, name, err)
	}
	defer r.Close()
	x, err := dataio.ReadNPY(r)
	if err != nil {
		return fmt.Errorf("%w %s: %w", ErrInput, name, err)
	}
	n, _ := x.Dims()
	for i := range n {
		if i%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		emit(Row{ID: name + ":" + strconv.Itoa(i), X: append([]float64(nil), x.RawRowView(i)...)})
	}
	return nil
}

// WriteCSV writes the embedded rows and the dead letters into dir as CSV:
// part files "part-NNNNN.csv" with the header id,y1,…,yd and dead-letter
// files "dead-letters-NNNNN.csv" with the header id,error. Each bundle
// writes one file under a temporary name in dir/.tmp-TOKEN/; only when
// every bundle has succeeded does one final step give the files their
// names and write SuccessFile last, so a failed or cancelled pipeline
// leaves no file named as complete. Either collection may be the zero
// PCollection (not written).
func WriteCSV(s beam.Scope, dir string, embedded, dead beam.PCollection) {
	writeCommitted(s.Scope("manifold.WriteCSV"), dir, embedded, dead, func(tmp string) any { return &writeEmbFn{writer: writer{Tmp: tmp}} })
}

// writeCommitted writes the embedded rows (by the DoFn embFn makes for the
// temporary folder) and the dead letters (CSV) into a temporary folder of
// dir, then commits them: renamed to their final names with _SUCCESS
// beside them, only after every part is written (commitFn). One element
// more than the rows, so the commit runs even with no rows.
func writeCommitted(s beam.Scope, dir string, embedded, dead beam.PCollection, embFn func(tmp string) any) {
	dir = strings.TrimSuffix(dir, "/")
	tmp := joinPath(dir, ".tmp-"+uuid.NewString())
	cols := []beam.PCollection{beam.Create(s, "")}
	if embedded.IsValid() {
		cols = append(cols, beam.ParDo(s, embFn(tmp), embedded))
	}
	if dead.IsValid() {
		cols = append(cols, beam.ParDo(s, &writeDeadFn{writer: writer{Tmp: tmp}}, dead))
	}
	names := beam.Flatten(s, cols...)
	grouped := beam.GroupByKey(s, beam.AddFixedKey(s, names))
	beam.ParDo0(s, &commitFn{Dir: dir, Tmp: tmp}, grouped)
}

// WriteNPY is WriteCSV with the embedded rows as NumPy files: part files
// "part-NNNNN.npy" (float64, rows × d) each with "part-NNNNN.ids.csv"
// beside it (the header id, then the rows' IDs in the same order). A
// bundle writes a part every npyRows rows, so a worker holds at most
// npyRows rows. Dead letters are CSV files as WriteCSV writes them.
func WriteNPY(s beam.Scope, dir string, embedded, dead beam.PCollection) {
	writeCommitted(s.Scope("manifold.WriteNPY"), dir, embedded, dead, func(tmp string) any { return &writeNPYFn{Tmp: tmp} })
}

// npyRows is the most rows a part of WriteNPY holds.
const npyRows = 1 << 16

type writeNPYFn struct {
	Tmp string

	ids []string
	y   []float64
	d   int
}

func (f *writeNPYFn) ProcessElement(ctx context.Context, e Embedded, emit func(string)) error {
	if len(f.ids) > 0 && len(e.Y) != f.d {
		return fmt.Errorf("%w: rows of %d and %d coordinates in one output", ErrOutput, f.d, len(e.Y))
	}
	f.d = len(e.Y)
	f.ids = append(f.ids, e.ID)
	f.y = append(f.y, e.Y...)
	if len(f.ids) >= npyRows {
		return f.flush(ctx, emit)
	}
	return nil
}

func (f *writeNPYFn) FinishBundle(ctx context.Context, emit func(string)) error {
	return f.flush(ctx, emit)
}

// flush writes the buffered rows as one part (its .npy and .ids.csv under
// temporary names) and emits both names.
func (f *writeNPYFn) flush(ctx context.Context, emit func(string)) error {
	if len(f.ids) == 0 {
		return nil
	}
	stem := joinPath(f.Tmp, "part-"+uuid.NewString())
	var buf bytes.Buffer
	if err := dataio.WriteNPY(&buf, mat.NewDense(len(f.ids), max(f.d, 1), padded(f.y, len(f.ids), f.d))); err != nil {
		return fmt.Errorf("%w %s.npy: %v", ErrOutput, stem, err)
	}
	if err := writeBytes(ctx, stem+".npy", buf.Bytes()); err != nil {
		return err
	}
	buf.Reset()
	cw := csv.NewWriter(&buf)
	cw.Write([]string{"id"})
	for _, id := range f.ids {
		cw.Write([]string{id})
	}
	cw.Flush()
	if err := writeBytes(ctx, stem+".ids.csv", buf.Bytes()); err != nil {
		return err
	}
	emit(stem + ".npy")
	emit(stem + ".ids.csv")
	f.ids, f.y = f.ids[:0], f.y[:0]
	return nil
}

// padded returns y, or a column of zeros for rows without coordinates
// (d = 0: a .npy file has at least one column).
func padded(y []float64, n, d int) []float64 {
	if d > 0 {
		return y
	}
	return make([]float64, n)
}

// writeBytes writes b to name through Beam's filesystem registry.
func writeBytes(ctx context.Context, name string, b []byte) error {
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrOutput, err)
	}
	defer fs.Close()
	w, err := fs.OpenWrite(ctx, name)
	if err != nil {
		return fmt.Errorf("%w %s: %v", ErrOutput, name, err)
	}
	if _, err := w.Write(b); err != nil {
		w.Close()
		return fmt.Errorf("%w %s: %v", ErrOutput, name, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("%w %s: %v", ErrOutput, name, err)
	}
	return nil
}

func joinPath(dir, name string) string {
	if strings.Contains(dir, "://") {
		return dir + "/" + name
	}
	return path.Join(dir, name)
}

// writer streams one bundle's lines to one temporary file.
type writer struct {
	Tmp string

	fs   filesystem.Interface
	wc   io.WriteCloser
	bw   *bufio.Writer
	cw   *csv.Writer
	name string
}

func (w *writer) open(ctx context.Context, kind string, header []string) error {
	fs, err := filesystem.New(ctx, w.Tmp)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrOutput, err)
	}
	w.fs = fs
	w.name = joinPath(w.Tmp, kind+"-"+uuid.NewString()+".csv")
	wc, err := fs.OpenWrite(ctx, w.name)
	if err != nil {
		return fmt.Errorf("%w %s: %v", ErrOutput, w.name, err)
	}
	w.wc = wc
	w.bw = bufio.NewWriterSize(wc, 1<<20)
	w.cw = csv.NewWriter(w.bw)
	return w.cw.Write(header)
}

// finish closes the bundle's file and emits its temporary name.
func (w *writer) finish(emit func(string)) error {
	if w.wc == nil {
		return nil
	}
	w.cw.Flush()
	err := w.cw.Error()
	if err == nil {
		err = w.bw.Flush()
	}
	if cerr := w.wc.Close(); err == nil {
		err = cerr
	}
	w.fs.Close()
	name := w.name
	w.wc, w.bw, w.cw, w.fs, w.name = nil, nil, nil, nil, ""
	if err != nil {
		return fmt.Errorf("%w %s: %v", ErrOutput, name, err)
	}
	emit(name)
	return nil
}

type writeEmbFn struct {
	writer
	rec []string
}

func (f *writeEmbFn) ProcessElement(ctx context.Context, e Embedded, _ func(string)) error {
	if f.wc == nil {
		h := []string{"id"}
		for j := range e.Y {
			h = append(h, "y"+strconv.Itoa(j+1))
		}
		if err := f.open(ctx, "part", h); err != nil {
			return err
		}
	}
	f.rec = append(f.rec[:0], e.ID)
	for _, v := range e.Y {
		f.rec = append(f.rec, strconv.FormatFloat(v, 'g', -1, 64))
	}
	return f.cw.Write(f.rec)
}

func (f *writeEmbFn) FinishBundle(emit func(string)) error { return f.finish(emit) }

type writeDeadFn struct{ writer }

func (f *writeDeadFn) ProcessElement(ctx context.Context, d DeadLetter, _ func(string)) error {
	if f.wc == nil {
		if err := f.open(ctx, "dead-letters", []string{"id", "error"}); err != nil {
			return err
		}
	}
	return f.cw.Write([]string{d.ID, d.Error})
}

func (f *writeDeadFn) FinishBundle(emit func(string)) error { return f.finish(emit) }

// commitFn runs once, after every writer bundle: it renames the temporary
// files to their final names and writes SuccessFile last.
type commitFn struct {
	Dir, Tmp string
}

func (f *commitFn) ProcessElement(ctx context.Context, _ int, names func(*string) bool) error {
	var parts, deads []string
	var name string
	for names(&name) {
		switch base := path.Base(name); {
		case name == "":
		case strings.HasPrefix(base, "part-"):
			parts = append(parts, name)
		default:
			deads = append(deads, name)
		}
	}
	sort.Strings(parts)
	sort.Strings(deads)
	fs, err := filesystem.New(ctx, f.Dir)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrOutput, err)
	}
	defer fs.Close()
	// A part is one file (CSV) or an .npy file and its .ids.csv, which
	// share a stem: the stems are numbered, the extensions kept.
	stems := map[string]int{}
	for _, p := range parts {
		stem, ext := splitExt(path.Base(p))
		i, ok := stems[stem]
		if !ok {
			i = len(stems)
			stems[stem] = i
		}
		if err := move(ctx, fs, p, joinPath(f.Dir, fmt.Sprintf("part-%05d%s", i, ext))); err != nil {
			return err
		}
	}
	for i, p := range deads {
		if err := move(ctx, fs, p, joinPath(f.Dir, fmt.Sprintf("dead-letters-%05d.csv", i))); err != nil {
			return err
		}
	}
	w, err := fs.OpenWrite(ctx, joinPath(f.Dir, SuccessFile))
	if err != nil {
		return fmt.Errorf("%w %s: %v", ErrOutput, SuccessFile, err)
	}
	if _, err := fmt.Fprintf(w, "parts %d\ndead-letter files %d\n", len(stems), len(deads)); err != nil {
		w.Close()
		return fmt.Errorf("%w %s: %v", ErrOutput, SuccessFile, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("%w %s: %v", ErrOutput, SuccessFile, err)
	}
	if rm, ok := fs.(filesystem.Remover); ok && !strings.Contains(f.Tmp, "://") {
		_ = rm.Remove(ctx, f.Tmp) // the emptied temporary directory (local)
	}
	return nil
}

// splitExt splits a file name at its first dot: "part-x.ids.csv" gives
// "part-x" and ".ids.csv".
func splitExt(base string) (string, string) {
	if i := strings.IndexByte(base, '.'); i >= 0 {
		return base[:i], base[i:]
	}
	return base, ""
}

// move renames (or copies and removes) one file.
func move(ctx context.Context, fs filesystem.Interface, from, to string) error {
	if r, ok := fs.(filesystem.Renamer); ok {
		if err := r.Rename(ctx, from, to); err != nil {
			return fmt.Errorf("%w: rename %s: %v", ErrOutput, from, err)
		}
		return nil
	}
	c, okc := fs.(filesystem.Copier)
	rm, okr := fs.(filesystem.Remover)
	if !okc || !okr {
		return fmt.Errorf("%w: filesystem of %s can neither rename nor copy and remove", ErrOutput, to)
	}
	if err := c.Copy(ctx, from, to); err != nil {
		return fmt.Errorf("%w: copy %s: %v", ErrOutput, from, err)
	}
	if err := rm.Remove(ctx, from); err != nil {
		return fmt.Errorf("%w: remove %s: %v", ErrOutput, from, err)
	}
	return nil
}
