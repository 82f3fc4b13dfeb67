package manifoldbeam

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/parquetio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/google/uuid"
	"github.com/xitongsys/parquet-go-source/buffer"
	"github.com/xitongsys/parquet-go/common"
	"github.com/xitongsys/parquet-go/parquet"
	"github.com/xitongsys/parquet-go/reader"
	parquetwriter "github.com/xitongsys/parquet-go/writer"
)

// ParquetRow is the schema of Parquet input (ReadParquet): a row's ID and
// its features, a repeated DOUBLE column. Files written by other tools
// need the same two columns: id (BYTE_ARRAY, UTF8) and x (repeated
// DOUBLE; pyarrow: write the features as a list<double> column named x
// with use_compliant_nested_type=False, or see the README).
type ParquetRow struct {
	ID string    `parquet:"name=id, type=BYTE_ARRAY, convertedtype=UTF8, encoding=PLAIN"`
	X  []float64 `parquet:"name=x, type=DOUBLE, repetitiontype=REPEATED"`
}

// ParquetEmbedded is the schema of Parquet output (WriteParquet): the
// row's ID and its coordinates y, a repeated DOUBLE column.
type ParquetEmbedded struct {
	ID string    `parquet:"name=id, type=BYTE_ARRAY, convertedtype=UTF8, encoding=PLAIN"`
	Y  []float64 `parquet:"name=y, type=DOUBLE, repetitiontype=REPEATED"`
}

func init() {
	beam.RegisterType(reflect.TypeOf((*ParquetRow)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*ParquetEmbedded)(nil)).Elem())
	register.Function1x1(parquetToRow)
	register.DoFn3x1[context.Context, Embedded, func(string), error](&writeParquetFn{})
	register.DoFn3x1[context.Context, fileio.ReadableFile, func(Row), error](&readParquetColumnsFn{})
}

// ReadParquet reads the Parquet shards matching glob (any registered
// filesystem) through Beam's parquetio.Read with the ParquetRow schema, as
// Rows. A shard is read whole by one worker (parquetio reads the file into
// memory), so memory is bounded by the largest shard; a file without the
// id or x column fails the pipeline. A row with no features becomes a
// dead letter downstream, as from CSV.
func ReadParquet(s beam.Scope, glob string) beam.PCollection {
	s = s.Scope("manifold.ReadParquet")
	pr := parquetio.Read(s, glob, reflect.TypeOf(ParquetRow{}))
	return beam.ParDo(s, parquetToRow, pr)
}

func parquetToRow(p ParquetRow) Row { return Row{ID: p.ID, X: p.X} }

// ReadLabeledParquet is ReadParquet with the class label (or stratum) of
// every row in the column labelColumn (Row.Label; not a feature), as
// ReadLabeledCSV: any primitive type (an integer, a string, a boolean, a
// float written with the fewest digits), a null label makes the row a
// dead letter downstream (Row.Err), a file without the column fails the
// pipeline. With labelColumn "" it is ReadParquet.
//
// parquetio.Read cannot read a column named at run time (its schema is a
// Go struct type fixed when the program is compiled), so the labelled read
// is a DoFn of this package over Beam's fileio matches that reads the
// three columns with parquet-go's column reader (the library parquetio
// wraps), a shard whole into one worker's memory as parquetio does. The
// features may be the repeated DOUBLE column x of ParquetRow or a list
// column x (pyarrow's compliant list<double>, x.list.element); a null
// feature makes the row a dead letter, as does a row without features;
// FLOAT, INT32 and INT64 features are converted to float64. A null id
// gives the ID "FILE:ROW" (0-based row index).
func ReadLabeledParquet(s beam.Scope, glob, labelColumn string) beam.PCollection {
	return ReadParquetColumns(s, glob, "", labelColumn)
}

// ReadParquetColumns reads Parquet shards by column names, as ReadCSV and
// ReadLabeledCSV read a CSV header. With idColumn set, the ID is that
// column (a string or an integer, one value a row; a null ID gives
// "FILE:ROW") and the features are all the other top-level columns but
// labelColumn, in schema order, each a number (FLOAT, DOUBLE, INT32 or
// INT64: one feature) or a list of numbers (a repeated column or a list
// column, as x above: its values, in order); a file without the column
// idColumn fails the pipeline with an error naming it, a null feature
// makes the row a dead letter. Without idColumn the columns are id and x
// as ReadLabeledParquet reads them. labelColumn "" means no label. A shard
// is read whole into one worker's memory, as parquetio does.
func ReadParquetColumns(s beam.Scope, glob, idColumn, labelColumn string) beam.PCollection {
	if idColumn == "" && labelColumn == "" {
		return ReadParquet(s, glob)
	}
	s = s.Scope("manifold.ReadParquet")
	files := fileio.ReadMatches(s, fileio.MatchFiles(s, glob), fileio.ReadUncompressed())
	return beam.ParDo(s, &readParquetColumnsFn{IDColumn: idColumn, LabelColumn: labelColumn}, files)
}

// readParquetColumnsFn reads the ID, feature and label columns of a
// Parquet shard by name: IDColumn and every other column as features, or
// (IDColumn "") the columns id and x.
type readParquetColumnsFn struct {
	IDColumn    string
	LabelColumn string
}

// parquetLeaf is one leaf column of a Parquet schema found by the name of
// its top-level field.
type parquetLeaf struct {
	path   string // parquet-go's in-path
	maxDL  int32  // definition level of a present value
	listDL int32  // definition level from which a list is non-empty (repeated columns)
	maxRL  int32
}

// findParquetLeaf returns the one leaf column under the top-level field
// name, or an error when there is none or more than one.
func findParquetLeaf(pr *reader.ParquetReader, name string) (parquetLeaf, error) {
	sh := pr.SchemaHandler
	var found []parquetLeaf
	for _, in := range sh.ValueColumns {
		ex := common.StrToPath(sh.InPathToExPath[in])
		if len(ex) < 2 || ex[1] != name {
			continue
		}
		inPath := common.StrToPath(in)
		leaf := parquetLeaf{path: in}
		var err error
		if leaf.maxDL, err = sh.MaxDefinitionLevel(inPath); err != nil {
			return parquetLeaf{}, err
		}
		if leaf.maxRL, err = sh.MaxRepetitionLevel(inPath); err != nil {
			return parquetLeaf{}, err
		}
		// The definition level of the repeated node: values at or above it
		// are inside a list, below it the list is null or empty.
		leaf.listDL = leaf.maxDL
		for i := 2; i <= len(inPath); i++ {
			rt, err := sh.GetRepetitionType(inPath[:i])
			if err != nil {
				return parquetLeaf{}, err
			}
			if rt == parquet.FieldRepetitionType_REPEATED {
				if leaf.listDL, err = sh.MaxDefinitionLevel(inPath[:i]); err != nil {
					return parquetLeaf{}, err
				}
				break
			}
		}
		found = append(found, leaf)
	}
	switch len(found) {
	case 0:
		return parquetLeaf{}, fmt.Errorf("no column %q", name)
	case 1:
		return found[0], nil
	}
	return parquetLeaf{}, fmt.Errorf("column %q has %d leaf columns, want one", name, len(found))
}

// parquetFields returns the names of the top-level fields of a Parquet
// schema, in schema order.
func parquetFields(pr *reader.ParquetReader) []string {
	sh := pr.SchemaHandler
	var names []string
	for _, in := range sh.ValueColumns {
		ex := common.StrToPath(sh.InPathToExPath[in])
		if len(ex) >= 2 && !slices.Contains(names, ex[1]) {
			names = append(names, ex[1])
		}
	}
	return names
}

// parquetColumn is one column read whole: its leaf, values and levels, and
// the next value to take (features).
type parquetColumn struct {
	name   string
	leaf   parquetLeaf
	v      []any
	rl, dl []int32
	k      int
}

// appendRow appends the values of the next row of a feature column to x.
// A null value (or a null element of a list) gives the reason the row is a
// dead letter (null, with the 1-based index of the feature); a null or
// empty list gives no features. A value that is not a number fails the
// shard (err).
func (c *parquetColumn) appendRow(x []float64) (_ []float64, null int, err error) {
	if c.k >= len(c.v) || (c.leaf.maxRL > 0 && c.rl[c.k] != 0) {
		return x, 0, fmt.Errorf("column %s: no value for the row", c.name)
	}
	// The values of the row: from k to the next repetition level 0.
	for first := true; c.k < len(c.v) && (first || c.leaf.maxRL > 0 && c.rl[c.k] != 0); first = false {
		dl := c.dl[c.k]
		switch v, ok := parquetFloat(c.v[c.k]); {
		case dl == c.leaf.maxDL && ok:
			x = append(x, v)
		case dl == c.leaf.maxDL:
			return x, 0, fmt.Errorf("column %s holds %T values, want numbers", c.name, c.v[c.k])
		case (c.leaf.maxRL == 0 || dl >= c.leaf.listDL) && null == 0:
			null = len(x) + 1 // a null scalar, or a null element of a list
		}
		c.k++
	}
	return x, null, nil
}

func (f *readParquetColumnsFn) ProcessElement(ctx context.Context, file fileio.ReadableFile, emit func(Row)) error {
	name := file.Metadata.Path
	fail := func(err error) error { return fmt.Errorf("%w %s: %v", ErrInput, name, err) }
	data, err := file.Read(ctx)
	if err != nil {
		return fail(err)
	}
	pr, err := reader.NewParquetColumnReader(buffer.NewBufferFileFromBytes(data), 1)
	if err != nil {
		return fail(err)
	}
	defer pr.ReadStop()
	n := pr.GetNumRows()
	idName, feats := f.IDColumn, []string{"x"}
	if idName == "" {
		idName = "id"
	} else {
		feats = nil
		for _, c := range parquetFields(pr) {
			if c != f.IDColumn && c != f.LabelColumn {
				feats = append(feats, c)
			}
		}
	}
	find := func(c string, repeated bool) (*parquetColumn, error) {
		leaf, err := findParquetLeaf(pr, c)
		switch {
		case err != nil:
			return nil, err
		case !repeated && leaf.maxRL > 0:
			return nil, fmt.Errorf("column %q is repeated; want one value a row", c)
		case leaf.maxRL > 1:
			return nil, fmt.Errorf("column %q is nested %d deep; want a number or a list of numbers", c, leaf.maxRL)
		}
		return &parquetColumn{name: c, leaf: leaf}, nil
	}
	id, err := find(idName, false)
	if err != nil {
		return fail(err)
	}
	var label *parquetColumn
	if f.LabelColumn != "" {
		if label, err = find(f.LabelColumn, false); err != nil {
			return fail(err)
		}
	}
	cols := make([]*parquetColumn, len(feats))
	for j, c := range feats {
		if cols[j], err = find(c, true); err != nil {
			return fail(err)
		}
	}
	if n == 0 {
		return nil
	}
	for _, c := range append([]*parquetColumn{id, label}, cols...) {
		if c == nil {
			continue
		}
		c.v, c.rl, c.dl, err = pr.ReadColumnByPath(c.leaf.path, n)
		if err == nil && (len(c.v) != len(c.dl) || len(c.rl) != len(c.dl)) {
			err = fmt.Errorf("%d values, %d levels", len(c.v), len(c.dl))
		}
		if err == nil && c.leaf.maxRL == 0 && int64(len(c.v)) != n {
			err = fmt.Errorf("%d values for %d rows", len(c.v), n)
		}
		if err != nil {
			return fail(fmt.Errorf("column %q: %v", c.name, err))
		}
	}
	for i := range int(n) {
		if i%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		r := Row{ID: name + ":" + strconv.Itoa(i)}
		if id.dl[i] == id.leaf.maxDL {
			switch v := id.v[i].(type) {
			case string, int32, int64:
				r.ID = parquetText(v)
			default:
				if f.IDColumn != "" { // the id column of the fixed schema keeps its old leniency
					return fail(fmt.Errorf("ID column %q holds %T values; want strings or integers", id.name, v))
				}
				r.ID = parquetText(v)
			}
		}
		if label != nil {
			if label.dl[i] == label.leaf.maxDL {
				r.Label = parquetText(label.v[i])
			} else {
				r.Err = fmt.Sprintf("%s row %d: no label (column %q is null)", name, i, f.LabelColumn)
			}
		}
		for _, c := range cols {
			var null int
			if r.X, null, err = c.appendRow(r.X); err != nil {
				return fail(fmt.Errorf("row %d: %v", i, err))
			}
			if null > 0 && r.Err == "" {
				r.Err = fmt.Sprintf("%s row %d: feature %d (column %s) is null", name, i, null, c.name)
			}
		}
		if r.Err != "" {
			r.X = nil
		}
		emit(r)
	}
	for _, c := range cols {
		if c.k != len(c.v) {
			return fail(fmt.Errorf("column %s: %d values left after %d rows", c.name, len(c.v)-c.k, n))
		}
	}
	return nil
}

// parquetText writes a Parquet value (a label or an ID) as text.
func parquetText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int32:
		return strconv.FormatInt(int64(v), 10)
	case int64:
		return strconv.FormatInt(v, 10)
	case bool:
		return strconv.FormatBool(v)
	case float32:
		return strconv.FormatFloat(float64(v), 'g', -1, 32)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.TrimSpace(fmt.Sprint(v))
}

// parquetFloat converts a Parquet feature value to float64.
func parquetFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case float32:
		return float64(v), true
	case int32:
		return float64(v), true
	case int64:
		return float64(v), true
	}
	return 0, false
}

// WriteParquet is WriteCSV with the embedded rows as Parquet files:
// "part-NNNNN.parquet" with the ParquetEmbedded schema (id, y), one a
// bundle (at most parquetRows rows, then another), written with
// parquet-go, the library parquetio uses, under temporary names and
// renamed by the same commit step, SuccessFile last. (parquetio.Write is
// not used: it gathers the whole collection on one worker and writes one
// file directly under its final name, with no output to order the commit
// after, so a failed run could leave a file named as complete.) Dead
// letters are CSV files as WriteCSV writes them.
func WriteParquet(s beam.Scope, dir string, embedded, dead beam.PCollection) {
	writeCommitted(s.Scope("manifold.WriteParquet"), dir, embedded, dead, func(tmp string) any { return &writeParquetFn{Tmp: tmp} })
}

// parquetRows is the most rows a part of WriteParquet holds.
const parquetRows = 1 << 16

type writeParquetFn struct {
	Tmp string

	rows []ParquetEmbedded
}

func (f *writeParquetFn) ProcessElement(ctx context.Context, e Embedded, emit func(string)) error {
	f.rows = append(f.rows, ParquetEmbedded{ID: e.ID, Y: e.Y})
	if len(f.rows) >= parquetRows {
		return f.flush(ctx, emit)
	}
	return nil
}

func (f *writeParquetFn) FinishBundle(ctx context.Context, emit func(string)) error {
	return f.flush(ctx, emit)
}

// flush writes the buffered rows as one part under a temporary name and
// emits that name.
func (f *writeParquetFn) flush(ctx context.Context, emit func(string)) error {
	if len(f.rows) == 0 {
		return nil
	}
	name := joinPath(f.Tmp, "part-"+uuid.NewString()+".parquet")
	var buf bytes.Buffer
	pw, err := parquetwriter.NewParquetWriterFromWriter(&buf, new(ParquetEmbedded), 1)
	if err != nil {
		return fmt.Errorf("%w %s: %v", ErrOutput, name, err)
	}
	for _, r := range f.rows {
		if err := pw.Write(r); err != nil {
			return fmt.Errorf("%w %s: %v", ErrOutput, name, err)
		}
	}
	if err := pw.WriteStop(); err != nil {
		return fmt.Errorf("%w %s: %v", ErrOutput, name, err)
	}
	if err := writeBytes(ctx, name, buf.Bytes()); err != nil {
		return err
	}
	emit(name)
	f.rows = f.rows[:0]
	return nil
}
