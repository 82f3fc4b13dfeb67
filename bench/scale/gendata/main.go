// Command gendata writes the deterministic data sets of engine/datasets as
// NumPy .npy files (float64, rows = samples), for benchmarks at scale and
// for the side-by-side runs of bench/peers:
//
//	go run ./bench/scale/gendata -kind digits -n 100000 -out digits100k.npy -labels digits100k.txt
//	go run ./bench/scale/gendata -kind roll -n 100000 -dim 784 -out roll784.npy
//	go run ./bench/scale/gendata -kind digits -n 100000 -seed 7 -float32 -out shard-007.npy
//
// Kinds: digits (DeformDigits of ../shared/data/usps9298, 256 features),
// roll and scurve (SwissRoll or SCurve with noise -noise, embedded in -dim
// dimensions by Embed with noise -embed-noise). The same flags give the
// same file. With -float32 the values are written as '<f4' (half the
// file: shards of 10⁷ rows for the Beam fits, one seed a shard).
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/engine/datasets"
)

func main() {
	kind := flag.String("kind", "digits", "digits, roll or scurve")
	n := flag.Int("n", 10000, "number of samples")
	dim := flag.Int("dim", 3, "roll, scurve: dimensions to embed the 3-D points in")
	noise := flag.Float64("noise", 0.05, "roll, scurve: noise of the 3-D points")
	embedNoise := flag.Float64("embed-noise", 0.01, "roll, scurve: noise added in every embedded dimension")
	seed := flag.Uint64("seed", 1, "seed")
	data := flag.String("data", filepath.Join("..", "shared", "data"), "digits: the shared data folder (holds usps9298/)")
	out := flag.String("out", "", "output .npy (or .csv)")
	labels := flag.String("labels", "", "optional labels file (digits: the digit; roll, scurve: the manifold parameter t)")
	f32 := flag.Bool("float32", false, "write the .npy values as float32 ('<f4')")
	flag.Parse()
	if err := run(*kind, *n, *dim, *noise, *embedNoise, *seed, *data, *out, *labels, *f32); err != nil {
		fmt.Fprintln(os.Stderr, "gendata:", err)
		os.Exit(1)
	}
}

func run(kind string, n, dim int, noise, embedNoise float64, seed uint64, data, out, labels string, f32 bool) error {
	if out == "" {
		return fmt.Errorf("-out is required")
	}
	if f32 && filepath.Ext(out) != ".npy" {
		return fmt.Errorf("-float32 writes .npy only, not %s", out)
	}
	if n <= 0 {
		return fmt.Errorf("-n %d: need at least one sample", n)
	}
	var x *mat.Dense
	var lab []string
	switch kind {
	case "digits":
		base, err := dataio.ReadMatrixFile(filepath.Join(data, "usps9298", "usps9298_X.npy"))
		if err != nil {
			return err
		}
		l, err := dataio.ReadLabelsFile(filepath.Join(data, "usps9298", "usps9298_y.txt"))
		if err != nil {
			return err
		}
		var y []int
		x, y, err = datasets.DeformDigits(base, l.Class, n, datasets.Deform{}, seed)
		if err != nil {
			return err
		}
		for _, c := range y {
			lab = append(lab, l.Names[c])
		}
	case "roll", "scurve":
		var p *mat.Dense
		var t []float64
		if kind == "roll" {
			p, t = datasets.SwissRoll(n, noise, seed)
		} else {
			p, t = datasets.SCurve(n, noise, seed)
		}
		x = p
		if dim != 3 {
			var err error
			if x, err = datasets.Embed(p, dim, embedNoise, seed); err != nil {
				return err
			}
		}
		for _, v := range t {
			lab = append(lab, fmt.Sprint(v))
		}
	default:
		return fmt.Errorf("-kind %q: want digits, roll or scurve", kind)
	}
	write := dataio.WriteMatrixFile
	if f32 {
		write = writeNPY32
	}
	if err := write(out, x); err != nil {
		return err
	}
	if labels != "" {
		f, err := os.Create(labels)
		if err != nil {
			return err
		}
		w := bufio.NewWriter(f)
		for _, s := range lab {
			fmt.Fprintln(w, s)
		}
		if err := w.Flush(); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	return nil
}

// writeNPY32 writes x as a float32 .npy file (version 1.0, C order).
func writeNPY32(path string, x mat.Matrix) error {
	r, c := x.Dims()
	dict := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }", r, c)
	hdr := dict + strings.Repeat(" ", 63-(10+len(dict))%64) + "\n" // magic, version and length: 10 bytes; 64-byte aligned
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("\x93NUMPY\x01\x00")
	binary.Write(w, binary.LittleEndian, uint16(len(hdr)))
	w.WriteString(hdr)
	var b [4]byte
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(float32(x.At(i, j))))
			w.Write(b[:])
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
