package engine

import (
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
)

// codec carries a model's fields into a model file (Save) or back out of
// one (Load). Each model lists its fields once, in its fields method, and
// the one list serves both ways: saving, every call stores the field under
// its name; loading, every call reads it, checks its shape or range and
// stores it in the field, and the first failure stops the rest (c.err).
// The calls name the shapes a fit produces (rows or cols < 0: any), so a
// file that a fit could not have written is refused, not used.
type codec struct {
	d    *modelData
	load bool
	err  error
}

// describedModel is a model that lists its fields for the codec.
type describedModel interface {
	Model
	fields(c *codec)
	core() *modelCore
	params() any
	setReport(Report)
}

// saveModel writes m in the model file format.
func saveModel(w io.Writer, m describedModel) error {
	b := m.core()
	c := &codec{d: newModelData(b.method, map[string]any{}, &b.report)}
	c.params(m.params(), false)
	m.fields(c)
	if c.err != nil {
		return c.err
	}
	return c.d.write(w)
}

// loadModel rebuilds a model of d's method from its fields.
func loadModel(d *modelData, m describedModel) (Model, error) {
	b := m.core()
	b.method = d.method
	if d.report != nil {
		b.report = *d.report
		// The parameters only the report holds, those it holds as the
		// fit wrote them (nothing that maps points reads them).
		(&codec{d: &modelData{params: d.report.Params}, load: true}).params(m.params(), true)
	}
	c := &codec{d: d, load: true}
	c.params(m.params(), false)
	m.fields(c)
	if c.err != nil {
		return nil, c.err
	}
	return m, nil
}

// loaded reports whether the codec is loading and every field so far
// was read: the place for a model's work after loading (prepared search
// structures).
func (c *codec) loaded() bool { return c.load && c.err == nil }

// skip reports whether a call has nothing to do: an earlier field failed.
func (c *codec) skip() bool { return c.err != nil }

// failf refuses the file: "<method> model: " and the message.
func (c *codec) failf(format string, a ...any) {
	if c.err == nil {
		c.err = modelErr("%s model: "+format, append([]any{c.d.method}, a...)...)
	}
}

// check refuses a file, while loading, where ok is false.
func (c *codec) check(ok bool, format string, a ...any) {
	if c.load && !ok {
		c.failf(format, a...)
	}
}

// has reports whether the file holds the named parameter or array (always
// true when saving): the test for a field that older files lack.
func (c *codec) has(name string) bool {
	if !c.load {
		return true
	}
	_, p := c.d.params[name]
	_, f := c.d.floats[name]
	_, i := c.d.ints[name]
	return p || f || i
}

// dim saves the embedding's dimension d, or loads it: the "dim" parameter,
// at least 1.
func (c *codec) dim(d int) int {
	c.intParam("dim", &d, 1, math.MaxInt32)
	return d
}

// param carries a parameter: saving, the value; loading, the file's value
// as get reads it from the JSON header (ok false: refuse the file, wanting
// what want says).
func param[T any](c *codec, name string, p *T, want string, get func(v any) (T, bool)) {
	if c.skip() {
		return
	}
	if !c.load {
		c.d.params[name] = *p
		return
	}
	v, ok := get(c.d.params[name])
	if !ok {
		c.failf("parameter %q = %v, want %s", name, c.d.params[name], want)
		return
	}
	*p = v
}

// intParam carries an integer parameter within [lo, hi].
func (c *codec) intParam(name string, p *int, lo, hi int) {
	param(c, name, p, fmt.Sprintf("an integer in [%d, %d]", lo, hi), func(a any) (int, bool) {
		v, ok := a.(float64)
		return int(v), ok && v == math.Trunc(v) && v >= float64(lo) && v <= float64(hi)
	})
}

// floatParam carries a finite float parameter.
func (c *codec) floatParam(name string, p *float64) {
	param(c, name, p, "a finite number", func(a any) (float64, bool) {
		v, ok := a.(float64)
		return v, ok && !math.IsNaN(v) && !math.IsInf(v, 0)
	})
}

// stringParam carries a string parameter.
func (c *codec) stringParam(name string, p *string) {
	param(c, name, p, "a string", func(a any) (string, bool) {
		v, ok := a.(string)
		return v, ok
	})
}

// boolParam carries a boolean parameter; a file without it gives false.
func (c *codec) boolParam(name string, p *bool) {
	param(c, name, p, "a boolean", func(a any) (bool, bool) {
		v, _ := a.(bool)
		return v, true
	})
}

// array carries an array of arrays (the file's float or int arrays):
// saving, *p; loading, the file's array, which fits says is of the right
// shape (or refuses the file itself).
func array[T any](c *codec, arrays map[string]T, name string, p *T, fits func(v T) bool) {
	if c.skip() {
		return
	}
	if !c.load {
		arrays[name] = *p
		return
	}
	v, ok := arrays[name]
	if !ok {
		c.failf("missing array %q", name)
		return
	}
	if fits(v) {
		*p = v
	}
}

// matrix carries a float array of rows×cols (either < 0: any).
func (c *codec) matrix(name string, p *blas64.General, rows, cols int) {
	array(c, c.d.floats, name, p, func(g blas64.General) bool {
		if (rows >= 0 && g.Rows != rows) || (cols >= 0 && g.Cols != cols) {
			c.failf("array %q is %d×%d, want %d×%d", name, g.Rows, g.Cols, rows, cols)
			return false
		}
		return true
	})
}

// vector carries a float array of length n (n < 0: any), stored as one row.
func (c *codec) vector(name string, p *[]float64, n int) {
	g := rowVec(*p)
	c.matrix(name, &g, 1, n)
	if c.loaded() {
		*p = g.Data
	}
}

// ints carries an int array of length n (n < 0: any).
func (c *codec) ints(name string, p *[]int, n int) {
	array(c, c.d.ints, name, p, func(v []int) bool {
		if n >= 0 && len(v) != n {
			c.failf("array %q has length %d, want %d", name, len(v), n)
			return false
		}
		return true
	})
}

// indices is ints for an array whose every value lies in [lo, hi).
func (c *codec) indices(name string, p *[]int, n, lo, hi int) {
	c.ints(name, p, n)
	if !c.loaded() {
		return
	}
	for i, x := range *p {
		if x < lo || x >= hi {
			c.failf("%s[%d] = %d is outside [%d, %d), which no fit produces", name, i, x, lo, hi)
			return
		}
	}
}

// kept carries the "kept" array: the n training points embedded, as
// indices of the fit's input, strictly increasing and below the input's
// size (from the report; unbounded without one).
func (c *codec) kept(kept *[]int, n int) {
	total := math.MaxInt
	if r := c.d.report; c.load && r != nil && r.N >= n {
		total = r.N
	}
	c.ints("kept", kept, n)
	c.increasing("kept", *kept, total)
}

// keptDropped carries "kept" and "dropped": the training points embedded
// and those left out (disconnected from the others), each strictly
// increasing, together a partition of the input's rows.
func (c *codec) keptDropped(kept, dropped *[]int, n int) {
	c.ints("kept", kept, n)
	c.ints("dropped", dropped, -1)
	if !c.loaded() {
		return
	}
	total := len(*kept) + len(*dropped)
	c.increasing("kept", *kept, total)
	c.increasing("dropped", *dropped, total)
	// Two strictly increasing lists within [0, total) of total entries in
	// all partition it exactly when they share no index.
	k, d := *kept, *dropped
	for i, j := 0, 0; c.err == nil && i < len(k) && j < len(d); {
		switch {
		case k[i] == d[j]:
			c.failf("index %d is both kept and dropped", k[i])
		case k[i] < d[j]:
			i++
		default:
			j++
		}
	}
}

// increasing checks, loading, that v is strictly increasing within [0, total).
func (c *codec) increasing(name string, v []int, total int) {
	if !c.loaded() {
		return
	}
	for i, x := range v {
		if x < 0 || x >= total || (i > 0 && x <= v[i-1]) {
			c.failf("%s[%d] = %d is not a strictly increasing index below %d, which no fit produces", name, i, x, total)
			return
		}
	}
}
