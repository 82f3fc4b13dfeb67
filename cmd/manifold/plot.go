package main

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Pictures are drawn with gonum.org/v1/plot on an image canvas of exactly
// the size asked for, at 96 dots per inch.
const plotDPI = 96

// px converts pixels to the canvas's length unit (points).
func px(n float64) vg.Length { return vg.Length(n * 72 / plotDPI) }

// writePNG draws a w×h pixel picture with fn and writes it to path as PNG.
func writePNG(path string, w, h int, fn func(c draw.Canvas)) error {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	c := vgimg.NewWith(vgimg.UseImage(img), vgimg.UseDPI(plotDPI))
	fn(draw.New(c))
	return writeFile(path, func(f *os.File) error {
		_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(f)
		return err
	})
}

// scatterPlot is a scatter plot of an embedding's first two coordinates
// (the first against the sample index when there is one), coloured by
// class with a legend, or by a continuous value with a colour bar, or in one
// colour.
type scatterPlot struct {
	Title string
	Y     *mat.Dense
	// Class and ClassNames colour by class (Class[i] indexes ClassNames).
	Class      []int
	ClassNames []string
	// Value colours by a continuous value.
	Value       []float64
	ColourTitle string
}

func (s scatterPlot) draw(c draw.Canvas) {
	xys, xlabel, ylabel := embeddingXYs(s.Y)
	colour, side := s.colouring(c.Max.Y - c.Min.Y)
	area := c
	if side != nil {
		// The legend never takes more than half the picture.
		w := min(side.width, (c.Max.X-c.Min.X)/2)
		area = draw.Crop(c, 0, -w, 0, 0)
		side.draw(draw.Crop(c, c.Max.X-c.Min.X-w, 0, 0, 0))
	}
	var shape func(i int) draw.GlyphDrawer
	if s.Class != nil && len(s.ClassNames) > len(kelly20) && len(s.Class) == len(xys) {
		styles := classStyles(len(s.ClassNames))
		shape = func(i int) draw.GlyphDrawer { return styles[s.Class[i]].Shape }
	}
	newScatter(fitTitle(s.Title, area), xlabel, ylabel, xys, nil, colour, shape).Draw(area)
}

// embeddingXYs returns the points to draw for an embedding and the axis
// labels: the first two coordinates, or the first against the sample index
// for a one-dimensional embedding.
func embeddingXYs(y *mat.Dense) (xys plotter.XYs, xlabel, ylabel string) {
	n, dim := y.Dims()
	xys = make(plotter.XYs, n)
	for i := range xys {
		if dim >= 2 {
			xys[i] = plotter.XY{X: y.At(i, 0), Y: y.At(i, 1)}
		} else {
			xys[i] = plotter.XY{X: float64(i), Y: y.At(i, 0)}
		}
	}
	if dim < 2 {
		return xys, "sample", "coordinate 1"
	}
	return xys, "coordinate 1", "coordinate 2"
}

// sidePanel is a legend or colour bar drawn right of a plot.
type sidePanel struct {
	width vg.Length
	draw  func(c draw.Canvas)
}

// colouring returns each point's colour and the legend or colour bar that
// explains them (nil for one colour).
// height is the canvas's, for the legend's columns.
func (s scatterPlot) colouring(height vg.Length) (func(i int) color.Color, *sidePanel) {
	switch {
	case s.Class != nil && len(s.Class) == s.Y.RawMatrix().Rows:
		styles := classStyles(len(s.ClassNames))
		return func(i int) color.Color { return styles[s.Class[i]].Colour }, classLegend(s.ColourTitle, s.ClassNames, styles, height)
	case s.Value != nil && len(s.Value) == s.Y.RawMatrix().Rows:
		cmap := valueMap(s.Value)
		return func(i int) color.Color { return mapColour(cmap, s.Value[i]) }, colourBar(s.ColourTitle, cmap)
	}
	return func(int) color.Color { return tab10[0] }, nil
}

// newScatter makes a plot of points drawn in the given order (all of them
// when order is nil), coloured by colour(i).
// shape(i), when not nil, gives the glyph (else circles).
func newScatter(title, xlabel, ylabel string, xys plotter.XYs, order []int, colour func(i int) color.Color, shape func(i int) draw.GlyphDrawer) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	radius := glyphRadius(len(xys))
	if order != nil {
		sorted := make(plotter.XYs, len(order))
		for k, i := range order {
			sorted[k] = xys[i]
		}
		xys = sorted
		inner := colour
		colour = func(k int) color.Color { return inner(order[k]) }
	}
	// GlyphStyle sizes the glyph boxes that keep points off the axes;
	// GlyphStyleFunc colours them.
	sc := &plotter.Scatter{XYs: xys, GlyphStyle: draw.GlyphStyle{Radius: radius, Shape: draw.CircleGlyph{}}}
	sc.GlyphStyleFunc = func(i int) draw.GlyphStyle {
		var sh draw.GlyphDrawer = draw.CircleGlyph{}
		if shape != nil {
			sh = shape(i)
		}
		return draw.GlyphStyle{Color: colour(i), Radius: radius, Shape: sh}
	}
	p.Add(sc)
	// A margin of 3% around the points, so none touches the frame.
	xmin, xmax, ymin, ymax := plotter.XYRange(xys)
	dx, dy := max(0.03*(xmax-xmin), 0.5*float64(boolInt(xmax == xmin))), max(0.03*(ymax-ymin), 0.5*float64(boolInt(ymax == ymin)))
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = xmin-dx, xmax+dx, ymin-dy, ymax+dy
	return p
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkFinite refuses to draw an embedding with NaN or Inf coordinates.
func checkFinite(y *mat.Dense) error {
	n, dim := y.Dims()
	for i := 0; i < n; i++ {
		for j := 0; j < min(dim, 2); j++ {
			if v := y.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("cannot plot the embedding: row %d, coordinate %d is %v", i+1, j+1, v)
			}
		}
	}
	return nil
}

// glyphRadius shrinks the dots as the points get many.
func glyphRadius(n int) vg.Length {
	switch {
	case n <= 500:
		return px(3)
	case n <= 5000:
		return px(2)
	}
	return px(1.3)
}

// tab10 is the ten-colour categorical palette of matplotlib and d3
// (Vega's "category10"): up to ten classes.
var tab10 = []color.Color{
	color.RGBA{0x1f, 0x77, 0xb4, 0xff}, color.RGBA{0xd6, 0x27, 0x28, 0xff}, color.RGBA{0x2c, 0xa0, 0x2c, 0xff},
	color.RGBA{0xff, 0x7f, 0x0e, 0xff}, color.RGBA{0x94, 0x67, 0xbd, 0xff}, color.RGBA{0x8c, 0x56, 0x4b, 0xff},
	color.RGBA{0xe3, 0x77, 0xc2, 0xff}, color.RGBA{0x17, 0xbe, 0xcf, 0xff}, color.RGBA{0xbc, 0xbd, 0x22, 0xff},
	color.RGBA{0x7f, 0x7f, 0x7f, 0xff},
}

// kelly20 is Kenneth Kelly's sequence of colours of maximum contrast
// (K. L. Kelly, "Twenty-two colors of maximum contrast", Color
// Engineering 3(6), 1965), without white and black: any two differ by
// at least 15 in CIELAB ΔE*76 (TestClassStyles), where twenty hues around
// the circle at one saturation come within 6.
var kelly20 = []color.Color{
	color.RGBA{0xf3, 0xc3, 0x00, 0xff}, color.RGBA{0x87, 0x56, 0x92, 0xff}, color.RGBA{0xf3, 0x84, 0x00, 0xff},
	color.RGBA{0xa1, 0xca, 0xf1, 0xff}, color.RGBA{0xbe, 0x00, 0x32, 0xff}, color.RGBA{0xc2, 0xb2, 0x80, 0xff},
	color.RGBA{0x84, 0x84, 0x82, 0xff}, color.RGBA{0x00, 0x88, 0x56, 0xff}, color.RGBA{0xe6, 0x8f, 0xac, 0xff},
	color.RGBA{0x00, 0x67, 0xa5, 0xff}, color.RGBA{0xf9, 0x93, 0x79, 0xff}, color.RGBA{0x60, 0x4e, 0x97, 0xff},
	color.RGBA{0xf6, 0xa6, 0x00, 0xff}, color.RGBA{0xb3, 0x44, 0x6c, 0xff}, color.RGBA{0xdc, 0xd3, 0x00, 0xff},
	color.RGBA{0x88, 0x2d, 0x17, 0xff}, color.RGBA{0x8d, 0xb6, 0x00, 0xff}, color.RGBA{0x65, 0x45, 0x22, 0xff},
	color.RGBA{0xe2, 0x58, 0x22, 0xff}, color.RGBA{0x2b, 0x3d, 0x26, 0xff},
}

// classStyle is how one class's points are drawn.
type classStyle struct {
	Colour color.Color
	Shape  draw.GlyphDrawer
}

// markerCycle gives the classes past the twentieth another shape: class c
// is drawn in colour c mod 20 with shape ⌊c/20⌋ of the cycle.
var markerCycle = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}, draw.PyramidGlyph{}, draw.BoxGlyph{}}

// classStyles returns k styles that tell the classes apart: tab10 up to
// ten classes, Kelly's twenty up to twenty, then the twenty colours again
// with the next shape of markerCycle (160 distinct styles, repeating past
// them).
func classStyles(k int) []classStyle {
	k = max(k, 1)
	out := make([]classStyle, k)
	for c := range out {
		switch {
		case k <= len(tab10):
			out[c] = classStyle{tab10[c], draw.CircleGlyph{}}
		default:
			out[c] = classStyle{kelly20[c%len(kelly20)], markerCycle[(c/len(kelly20))%len(markerCycle)]}
		}
	}
	return out
}

// legendRow is the height of one legend entry, legendMax the most entries
// a legend shows (the rest are counted in its last line).
const (
	legendRow = 16.0 // pixels
	legendMax = 120
)

// classLegend lists the classes and their styles right of the plot, in as
// many columns as the height needs (one column holds (height − 60 px) /
// 16 px entries, so a dozen-odd classes take one column and a hundred take
// several), at most legendMax entries.
func classLegend(title string, names []string, styles []classStyle, height vg.Length) *sidePanel {
	shown := min(len(names), legendMax)
	perCol := max(4, int((float64(height)*plotDPI/72-60)/legendRow)-1)
	cols := (shown + perCol - 1) / perCol
	longest := len([]rune(title))
	for _, n := range names[:shown] {
		longest = max(longest, len([]rune(n)))
	}
	colWidth := px(float64(min(longest, 24))*8 + 40)
	return &sidePanel{width: colWidth*vg.Length(cols) + px(10), draw: func(c draw.Canvas) {
		for col := 0; col < cols; col++ {
			l := plot.NewLegend()
			l.Top = true
			l.Left = true
			l.YOffs = -px(40)
			if col == 0 && title != "" {
				l.Add(title)
			}
			for k := col * perCol; k < min((col+1)*perCol, shown); k++ {
				name := names[k]
				if k == shown-1 && len(names) > shown {
					l.Add(fmt.Sprintf("… %d more", len(names)-k))
					break
				}
				if r := []rune(name); len(r) > 24 {
					name = string(r[:23]) + "…"
				}
				st := styles[k]
				l.Add(name, &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: st.Colour, Radius: px(4), Shape: st.Shape}})
			}
			left := colWidth * vg.Length(col)
			l.Draw(draw.Crop(c, left, -(c.Max.X - c.Min.X - left - colWidth), 0, 0))
		}
	}}
}

// valueMap returns the continuous colour map over the range of v: dark
// violet through blue and green to yellow, luminance rising linearly.
func valueMap(v []float64) palette.ColorMap {
	cmap, err := moreland.NewLuminance([]color.Color{
		color.NRGBA{0x44, 0x01, 0x54, 0xff}, color.NRGBA{0x3b, 0x52, 0x8b, 0xff}, color.NRGBA{0x21, 0x90, 0x8d, 0xff},
		color.NRGBA{0x5d, 0xc9, 0x63, 0xff}, color.NRGBA{0xfd, 0xe7, 0x25, 0xff},
	})
	if err != nil {
		panic(err) // the controls above have rising luminance
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range v {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	if !(hi > lo) {
		lo, hi = lo-0.5, lo+0.5
	}
	cmap.SetMin(lo)
	cmap.SetMax(hi)
	return cmap
}

func mapColour(cmap palette.ColorMap, v float64) color.Color {
	c, err := cmap.At(math.Min(cmap.Max(), math.Max(cmap.Min(), v)))
	if err != nil {
		return color.Black
	}
	return c
}

// colourBar draws the colour map as a vertical bar with the values' axis.
func colourBar(title string, cmap palette.ColorMap) *sidePanel {
	return &sidePanel{width: px(110), draw: func(c draw.Canvas) {
		p := plot.New()
		p.HideX()
		p.Y.Label.Text = title
		p.Add(&plotter.ColorBar{ColorMap: cmap, Vertical: true})
		// Leave room for the title line of the plot beside it.
		p.Draw(draw.Crop(c, px(10), -px(20), px(10), -px(40)))
	}}
}

// rollView draws 3-D points (the swiss roll) in an oblique projection:
// screen x = x + 0.43·y, screen y = z + 0.25·y, the far points (large y)
// first, so the roll reads as a scroll seen from the front and a little
// above, coloured by value.
type rollView struct {
	Title string
	X     *mat.Dense // n×3
	Value []float64
}

func (r rollView) draw(c draw.Canvas, cmap palette.ColorMap) {
	n, _ := r.X.Dims()
	xys := make(plotter.XYs, n)
	order := make([]int, n)
	for i := range xys {
		x, y, z := r.X.At(i, 0), r.X.At(i, 1), r.X.At(i, 2)
		xys[i] = plotter.XY{X: x + 0.43*y, Y: z + 0.25*y}
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return r.X.At(order[a], 1) > r.X.At(order[b], 1) })
	p := newScatter(r.Title, "x + 0.43·y (oblique view)", "z + 0.25·y", xys, order,
		func(i int) color.Color { return mapColour(cmap, r.Value[i]) }, nil)
	p.Draw(c)
}

// demoPicture is the demo's figure: the 3-D input, the embedding and the
// colour bar of the roll parameter, side by side.
func demoPicture(c draw.Canvas, x *mat.Dense, t []float64, y *mat.Dense, title string) {
	cmap := valueMap(t)
	bar := colourBar("roll parameter t", cmap)
	w := c.Max.X - c.Min.X
	half := (w - bar.width) / 2
	rollView{Title: fmt.Sprintf("input: %d-point swiss roll in 3-D", len(t)), X: x, Value: t}.
		draw(draw.Crop(c, 0, -(w-half), 0, 0), cmap)
	xys, xl, yl := embeddingXYs(y)
	area := draw.Crop(c, half, -bar.width, 0, 0)
	newScatter(fitTitle(title, area), xl, yl, xys, nil, func(i int) color.Color { return mapColour(cmap, t[i]) }, nil).Draw(area)
	bar.draw(draw.Crop(c, w-bar.width, 0, 0, 0))
}

// fitTitle breaks a title into lines at spaces so that it fits the width
// of the canvas (about 7 pixels per character of the default font).
func fitTitle(s string, c draw.Canvas) string {
	width := max(20, int(float64(c.Max.X-c.Min.X)/float64(px(7))))
	var lines []string
	for len([]rune(s)) > width {
		r := []rune(s)
		cut := strings.LastIndex(string(r[:width]), " ")
		if cut <= 0 {
			break
		}
		lines = append(lines, s[:cut])
		s = s[cut+1:]
	}
	return strings.Join(append(lines, s), "\n")
}
