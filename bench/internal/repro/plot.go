package repro

import (
	"image/color"
	"math"
	"os"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Series is one line of a line plot, with optional error bars (±Err).
type Series struct {
	Name string
	X, Y []float64
	Err  []float64
}

// colours of the series, in order.
var colours = []color.Color{
	color.RGBA{31, 119, 180, 255}, color.RGBA{214, 39, 40, 255}, color.RGBA{44, 160, 44, 255},
	color.RGBA{255, 127, 14, 255}, color.RGBA{148, 103, 189, 255}, color.RGBA{140, 86, 75, 255},
	color.RGBA{23, 190, 207, 255}, color.RGBA{127, 127, 127, 255},
}

// LinePlot returns a plot of the series with markers and error bars.
func LinePlot(title, xlabel, ylabel string, series []Series) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	for i, s := range series {
		xys := make(plotter.XYs, len(s.X))
		for k := range s.X {
			xys[k] = plotter.XY{X: s.X[k], Y: s.Y[k]}
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			continue
		}
		c := colours[i%len(colours)]
		l.Color, pts.Color = c, c
		pts.Shape = draw.CircleGlyph{}
		pts.Radius = vg.Points(2.5)
		p.Add(l, pts)
		p.Legend.Add(s.Name, l, pts)
		if s.Err != nil {
			errs := make(plotter.YErrors, len(s.Err))
			for k, e := range s.Err {
				errs[k] = struct{ Low, High float64 }{e, e}
			}
			eb, err := plotter.NewYErrorBars(struct {
				plotter.XYs
				plotter.YErrors
			}{xys, errs})
			if err == nil {
				eb.Color = c
				p.Add(eb)
			}
		}
	}
	return p
}

// ScatterPlot returns a scatter plot of the first two columns of y coloured
// by value (Moreland's blue–red scale); small points.
func ScatterPlot(title string, y *mat.Dense, value []float64) *plot.Plot {
	n, _ := y.Dims()
	xys := make(plotter.XYs, n)
	for i := range xys {
		xys[i] = plotter.XY{X: y.At(i, 0), Y: y.At(i, 1)}
	}
	return scatterXYs(title, xys, value)
}

// Oblique returns the 2-D oblique view of 3-D points (rows of x) seen from
// azimuth az and elevation el (radians), for drawing a swiss roll or an
// S-curve.
func Oblique(x *mat.Dense, az, el float64) *mat.Dense {
	n, _ := x.Dims()
	out := mat.NewDense(n, 2, nil)
	ca, sa, ce, se := math.Cos(az), math.Sin(az), math.Cos(el), math.Sin(el)
	for i := 0; i < n; i++ {
		a, b, c := x.At(i, 0), x.At(i, 1), x.At(i, 2)
		u := ca*a - sa*c
		w := sa*a + ca*c
		out.Set(i, 0, u)
		out.Set(i, 1, ce*b-se*w)
	}
	return out
}

func scatterXYs(title string, xys plotter.XYs, value []float64) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.HideAxes()
	p.X.Tick.Marker = plot.ConstantTicks(nil)
	p.Y.Tick.Marker = plot.ConstantTicks(nil)
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return p
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range value {
		lo, hi = min(lo, v), max(hi, v)
	}
	cm := moreland.SmoothBlueRed()
	if hi > lo {
		cm.SetMin(lo)
		cm.SetMax(hi)
	}
	s.GlyphStyleFunc = func(i int) draw.GlyphStyle {
		c := color.Color(color.Black)
		if value != nil && hi > lo {
			if cc, err := cm.At(value[i]); err == nil {
				c = cc
			}
		}
		return draw.GlyphStyle{Color: c, Radius: vg.Points(1.6), Shape: draw.CircleGlyph{}}
	}
	p.Add(s)
	return p
}

// SaveGrid draws the plots (rows × columns, nil cells left empty) on one
// w×h-point canvas and writes it as PNG.
func SaveGrid(path string, plots [][]*plot.Plot, w, h vg.Length) error {
	rows, cols := len(plots), 0
	for _, r := range plots {
		cols = max(cols, len(r))
	}
	img := vgimg.New(w, h)
	dc := draw.New(img)
	t := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 2, PadY: vg.Millimeter * 2,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align(plots, t, dc)
	for i := range plots {
		for j, p := range plots[i] {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Save writes one plot as a w×h-point PNG.
func Save(path string, p *plot.Plot, w, h vg.Length) error {
	return p.Save(w, h, path)
}
