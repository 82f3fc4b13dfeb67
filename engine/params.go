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
// the report shows or Transform needs. Each field's tag says once where it
// goes — the report's Params (and so the command's -report), the model
// file's parameters, or both:
//
//	`param:"name"`         the report and the model file
//	`param:"name,report"`  the report only (Load takes it from the file's report)
//	`param:"name,file"`    the model file only
//
// with the options omitempty (the report leaves the field out while it is
// zero or nil), unless=N (the report leaves it out while parameter N is not
// zero: "k" unless "eps"), min=V (Load refuses an integer below V; above
// math.MaxInt32 always) and optional (older files may lack it: zero).
// Fields are bool, int, float64 (finite) or string, of named types too
// (kept as the plain type); report-only ones may be pointers (nil: not
// reported). An embedded struct's fields are the struct's own; the tag
// `param:",report"` on the embedding keeps them out of the file. Every
// report and file also holds "dim", the embedding's dimension, which each
// model's fields method reads first.

// paramField is one tagged field of a parameter struct.
type paramField struct {
	name                string
	v                   reflect.Value // settable
	report, file        bool
	omitEmpty, optional bool
	unless              string
	min                 int
}

// paramFields lists the tagged fields of *p, embedded structs' included.
func paramFields(p any) []paramField {
	var out []paramField
	var walk func(v reflect.Value, report, file bool)
	walk = func(v reflect.Value, report, file bool) {
		for i := 0; i < v.NumField(); i++ {
			sf := v.Type().Field(i)
			tag, ok := sf.Tag.Lookup("param")
			opts := strings.Split(tag, ",")
			f := paramField{name: opts[0], v: v.Field(i), report: report, file: file}
			for _, o := range opts[1:] {
				k, val, _ := strings.Cut(o, "=")
				var err error
				switch k {
				case "report", "file":
					f.report, f.file = f.report && k == "report", f.file && k == "file"
				case "omitempty":
					f.omitEmpty = true
				case "optional":
					f.optional = true
				case "unless":
					f.unless = val
				case "min":
					f.min, err = strconv.Atoi(val)
				default:
					err = fmt.Errorf("option %q", k)
				}
				if err != nil {
					panic(fmt.Sprintf("engine: %s.%s: param tag %q: %v", v.Type(), sf.Name, tag, err))
				}
			}
			switch {
			case sf.Anonymous && f.name == "":
				walk(f.v, f.report, f.file)
			case ok:
				out = append(out, f)
			}
		}
	}
	walk(reflect.ValueOf(p).Elem(), true, true)
	return out
}

// reportParams returns the report's params of m: "dim" and the report's
// fields of its parameter struct.
func reportParams(m describedModel) map[string]any {
	c := &codec{d: &modelData{params: map[string]any{"dim": m.Dim()}}}
	c.params(m.params(), true)
	return c.d.params
}

// params carries the parameter struct *p: its file's fields, or with
// report its report's fields (saving: into the report's map, less those
// omitted; loading: the report-only fields, from the file's report).
func (c *codec) params(p any, report bool) {
	fs := paramFields(p)
	zero := map[string]bool{}
	for _, f := range fs {
		zero[f.name] = f.v.IsZero()
	}
	for _, f := range fs {
		switch {
		case report && (!f.report || (c.load && f.file)), !report && !f.file:
			continue
		case c.load && (report || f.optional) && !c.has(f.name):
			continue
		case !c.load && report && ((f.omitEmpty && zero[f.name]) || (f.unless != "" && !zero[f.unless])):
			continue
		}
		v := f.v
		if v.Kind() == reflect.Pointer {
			if c.load {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		switch v.Kind() {
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
