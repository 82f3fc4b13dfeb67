package manifoldbeam

import (
	"bytes"
	"context"
	"fmt"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/parquetio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/google/uuid"
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
