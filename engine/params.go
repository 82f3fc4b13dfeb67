package engine

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// A method's parameters are one struct, which its model holds (base[P]):
// the settings in effect, defaults resolved, and what the fit found that
// the report shows or Transform needs. Each field is described once, by
// its tag, for the report's Params (and so the command's -report), the
// model file's parameters and Load:
//
//	`param:"name"`         in the report and in the model file
//	`param:"name,report"`  in the report only (Load takes it back from the
//	                       file's report when it is there)
//	`param:"name,file"`    in the model file only
//
// with the options
//
//	omitempty  the report leaves the field out while it is zero (nil)
//	unless=N   the report leaves the field out while the parameter N is
//	           not zero ("k" unless "eps": the graph's size is one or the other)
//	min=V      Load refuses an integer below V (default 0; above
//	           math.MaxInt32 always)
//	optional   Load accepts a file without it (older files): the zero value
//
// Fields are bool, int, float64 (finite) or string, named types too
// (reported as the plain type); a report-only field may be a pointer (nil:
// not reported). The fields of an embedded struct are the struct's own; a
// tag `param:",report"` on the embedding keeps them all out of the file.
// Every report and file also holds "dim", the embedding's dimension (the
// model's fields method reads it first, for the shapes of its arrays).

// paramField is one tagged field of a parameter struct.
type paramField struct {
	name         string
	v            reflect.Value // settable
	report, file bool
	omitEmpty    bool
	optional     bool
	unless       string
	min          int
}

// paramFields lists the tagged fields of *p, embedded structs' included.
func paramFields(p any) []paramField {
	var out []paramField
	var walk func(v reflect.Value, report, file bool)
	walk = func(v reflect.Value, report, file bool) {
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			tag, ok := sf.Tag.Lookup("param")
			if !ok && !sf.Anonymous {
				continue
			}
			opts := strings.Split(tag, ",")
			f := paramField{name: opts[0], v: v.Field(i), report: report, file: file}
			for _, o := range opts[1:] {
				k, val, _ := strings.Cut(o, "=")
				switch k {
				case "report":
					f.file = false
				case "file":
					f.report = false
				case "omitempty":
					f.omitEmpty = true
				case "optional":
					f.optional = true
				case "unless":
					f.unless = val
				case "min":
					var err error
					if f.min, err = strconv.Atoi(val); err != nil {
						panic(fmt.Sprintf("engine: %s.%s: param tag %q", t, sf.Name, tag))
					}
				default:
					panic(fmt.Sprintf("engine: %s.%s: param tag %q", t, sf.Name, tag))
				}
			}
			if sf.Anonymous && f.name == "" {
				walk(f.v, f.report, f.file)
				continue
			}
			out = append(out, f)
		}
	}
	walk(reflect.ValueOf(p).Elem(), true, true)
	return out
}

// plain returns the field's value as a bool, int, float64 or string, and
// false for a nil pointer.
func (f paramField) plain() (any, bool) {
	v := f.v
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil, false
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Bool:
		return v.Bool(), true
	case reflect.Int:
		return int(v.Int()), true
	case reflect.Float64:
		return v.Float(), true
	case reflect.String:
		return v.String(), true
	}
	panic(fmt.Sprintf("engine: parameter %q of kind %s", f.name, v.Kind()))
}

// reportParams returns the report's params of m: "dim" and the report's
// fields of its parameter struct.
func reportParams(m describedModel) map[string]any {
	fs := paramFields(m.params())
	out := map[string]any{"dim": m.Dim()}
	named := make(map[string]paramField, len(fs))
	for _, f := range fs {
		named[f.name] = f
	}
	for _, f := range fs {
		v, ok := f.plain()
		if !f.report || !ok || (f.omitEmpty && f.v.IsZero()) || (f.unless != "" && !named[f.unless].v.IsZero()) {
			continue
		}
		out[f.name] = v
	}
	return out
}

// params carries the file's fields of the parameter struct *p.
func (c *codec) params(p any) {
	for _, f := range paramFields(p) {
		if !f.file || (f.optional && !c.has(f.name)) {
			continue
		}
		switch v := f.v; v.Kind() {
		case reflect.Bool:
			b := v.Bool()
			c.boolParam(f.name, &b)
			v.SetBool(b)
		case reflect.Int:
			i := int(v.Int())
			c.intParam(f.name, &i, f.min, math.MaxInt32)
			v.SetInt(int64(i))
		case reflect.Float64:
			x := v.Float()
			c.floatParam(f.name, &x)
			v.SetFloat(x)
		case reflect.String:
			s := v.String()
			c.stringParam(f.name, &s)
			v.SetString(s)
		default:
			panic(fmt.Sprintf("engine: parameter %q of kind %s", f.name, v.Kind()))
		}
	}
}

// reported sets the report-only fields of *p from a loaded report's params,
// those it holds with a value of the field's kind (the report is what the
// fit said; nothing reads these fields to map points).
func reported(p any, params map[string]any) {
	for _, f := range paramFields(p) {
		a, ok := params[f.name]
		if f.file || !ok {
			continue
		}
		v := f.v
		if v.Kind() == reflect.Pointer {
			v = reflect.New(v.Type().Elem()).Elem()
		}
		switch x := a.(type) {
		case bool:
			ok = v.Kind() == reflect.Bool
			if ok {
				v.SetBool(x)
			}
		case float64: // JSON's numbers
			switch v.Kind() {
			case reflect.Float64:
				v.SetFloat(x)
			case reflect.Int:
				ok = x == math.Trunc(x) && math.Abs(x) <= math.MaxInt32
				if ok {
					v.SetInt(int64(x))
				}
			default:
				ok = false
			}
		case string:
			ok = v.Kind() == reflect.String
			if ok {
				v.SetString(x)
			}
		default:
			ok = false
		}
		if ok && f.v.Kind() == reflect.Pointer {
			f.v.Set(v.Addr())
		}
	}
}
