//go:build ignore

// gen draws the capabilities icons: the application icon at every size the
// desktops ask for, its SVG twin, and one tray icon per hub state. The
// drawings are plain geometry (a rounded square, a hub with three spokes and
// a state badge), rendered with 4x4 supersampling so edges stay smooth at
// 16 pixels.
//
// Run it from the repository root and commit the output:
//
//	go run assets/gen.go
package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
	"path/filepath"
)

// rgba is a straight-alpha colour with components in [0,1].
type rgba struct{ r, g, b, a float64 }

func hex(s string) rgba {
	var r, g, b uint8
	if _, err := fmt.Sscanf(s, "#%02x%02x%02x", &r, &g, &b); err != nil {
		panic(err)
	}
	return rgba{float64(r) / 255, float64(g) / 255, float64(b) / 255, 1}
}

var (
	bgTop    = hex("#4f46e5") // indigo
	bgBottom = hex("#7c3aed") // violet
	white    = rgba{1, 1, 1, 1}
	amber    = hex("#f59e0b")
	red      = hex("#dc2626")
	slate    = hex("#64748b")
)

// shape reports whether the point (x, y), in units of the icon side, is inside.
type shape func(x, y float64) bool

// layer is a shape painted with a colour; paint is called with the point so
// gradients are possible.
type layer struct {
	in    shape
	paint func(x, y float64) rgba
}

func solid(c rgba) func(x, y float64) rgba { return func(float64, float64) rgba { return c } }

func roundedRect(x0, y0, x1, y1, r float64) shape {
	return func(x, y float64) bool {
		if x < x0 || x > x1 || y < y0 || y > y1 {
			return false
		}
		cx := math.Max(x0+r, math.Min(x, x1-r))
		cy := math.Max(y0+r, math.Min(y, y1-r))
		return (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r
	}
}

func circle(cx, cy, r float64) shape {
	return func(x, y float64) bool { return (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r }
}

// capsule is a line segment from (ax, ay) to (bx, by) with round ends.
func capsule(ax, ay, bx, by, w float64) shape {
	return func(x, y float64) bool {
		dx, dy := bx-ax, by-ay
		t := ((x-ax)*dx + (y-ay)*dy) / (dx*dx + dy*dy)
		t = math.Max(0, math.Min(1, t))
		px, py := ax+t*dx-x, ay+t*dy-y
		return px*px+py*py <= w*w/4
	}
}

func union(s ...shape) shape {
	return func(x, y float64) bool {
		for _, f := range s {
			if f(x, y) {
				return true
			}
		}
		return false
	}
}

// hub geometry, shared by the PNG and SVG renderings.
const (
	hubX, hubY  = 0.5, 0.52
	hubR        = 0.115
	nodeR       = 0.075
	spokeLen    = 0.27
	spokeW      = 0.055
	cornerR     = 0.22
	iconInset   = 0.04
	badgeR      = 0.21
	badgeRing   = 0.035
	badgeCX     = 0.76
	badgeCY     = 0.76
	grayedAlpha = 0.55
)

var spokeAngles = []float64{-90, 30, 150}

func nodes() [][2]float64 {
	var out [][2]float64
	for _, a := range spokeAngles {
		rad := a * math.Pi / 180
		out = append(out, [2]float64{hubX + spokeLen*math.Cos(rad), hubY + spokeLen*math.Sin(rad)})
	}
	return out
}

func glyph() shape {
	parts := []shape{circle(hubX, hubY, hubR)}
	for _, n := range nodes() {
		parts = append(parts, capsule(hubX, hubY, n[0], n[1], spokeW), circle(n[0], n[1], nodeR))
	}
	return union(parts...)
}

func background() shape {
	return roundedRect(iconInset, iconInset, 1-iconInset, 1-iconInset, cornerR)
}

func gradient(x, y float64) rgba {
	t := math.Max(0, math.Min(1, (x+y)/2))
	return rgba{
		bgTop.r + (bgBottom.r-bgTop.r)*t,
		bgTop.g + (bgBottom.g-bgTop.g)*t,
		bgTop.b + (bgBottom.b-bgTop.b)*t,
		1,
	}
}

func grayGradient(x, y float64) rgba {
	c := gradient(x, y)
	l := 0.3*c.r + 0.59*c.g + 0.11*c.b
	return rgba{l, l, l, grayedAlpha + (1-grayedAlpha)*0.6}
}

func appLayers() []layer {
	return []layer{
		{background(), gradient},
		{glyph(), solid(white)},
	}
}

// badge returns the layers of a state badge: a white ring, a coloured disc and
// a symbol drawn with the given shapes.
func badge(fill rgba, symbol shape) []layer {
	return []layer{
		{circle(badgeCX, badgeCY, badgeR+badgeRing), solid(white)},
		{circle(badgeCX, badgeCY, badgeR), solid(fill)},
		{symbol, solid(white)},
	}
}

func trayLayers(state string) []layer {
	base := appLayers()
	const s = 0.045 // stroke width of badge symbols
	switch state {
	case "idle":
		return base
	case "pending":
		// an exclamation mark
		sym := union(
			capsule(badgeCX, badgeCY-0.11, badgeCX, badgeCY+0.02, s*1.4),
			circle(badgeCX, badgeCY+0.095, s*0.8),
		)
		return append(base, badge(amber, sym)...)
	case "down":
		// a cross
		d := 0.075
		sym := union(
			capsule(badgeCX-d, badgeCY-d, badgeCX+d, badgeCY+d, s*1.3),
			capsule(badgeCX-d, badgeCY+d, badgeCX+d, badgeCY-d, s*1.3),
		)
		return append(base, badge(red, sym)...)
	case "paused":
		// two bars over a greyed icon
		sym := union(
			capsule(badgeCX-0.05, badgeCY-0.08, badgeCX-0.05, badgeCY+0.08, s*1.3),
			capsule(badgeCX+0.05, badgeCY-0.08, badgeCX+0.05, badgeCY+0.08, s*1.3),
		)
		grey := []layer{
			{background(), grayGradient},
			{glyph(), solid(rgba{1, 1, 1, 0.9})},
		}
		return append(grey, badge(slate, sym)...)
	}
	panic("unknown state " + state)
}

// render rasterises layers at size x size with ss x ss samples per pixel.
func render(size int, layers []layer) *image.NRGBA {
	const ss = 4
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			// premultiplied accumulation
			var r, g, b, a float64
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					x := (float64(px) + (float64(sx)+0.5)/ss) / float64(size)
					y := (float64(py) + (float64(sy)+0.5)/ss) / float64(size)
					var cr, cg, cb, ca float64
					for _, l := range layers {
						if !l.in(x, y) {
							continue
						}
						c := l.paint(x, y)
						cr = c.r*c.a + cr*(1-c.a)
						cg = c.g*c.a + cg*(1-c.a)
						cb = c.b*c.a + cb*(1-c.a)
						ca = c.a + ca*(1-c.a)
					}
					r, g, b, a = r+cr, g+cg, b+cb, a+ca
				}
			}
			n := float64(ss * ss)
			r, g, b, a = r/n, g/n, b/n, a/n
			if a > 0 {
				r, g, b = r/a, g/a, b/a
			}
			img.SetNRGBA(px, py, color.NRGBA{
				R: uint8(math.Round(r * 255)),
				G: uint8(math.Round(g * 255)),
				B: uint8(math.Round(b * 255)),
				A: uint8(math.Round(a * 255)),
			})
		}
	}
	return img
}

func svg() []byte {
	const n = 512.0
	f := func(v float64) string { return fmt.Sprintf("%.1f", v*n) }
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="512" height="512" viewBox="0 0 512 512">`+"\n")
	fmt.Fprintf(&b, `  <title>capabilities</title>`+"\n")
	fmt.Fprintf(&b, `  <defs>
    <linearGradient id="bg" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="#4f46e5"/>
      <stop offset="1" stop-color="#7c3aed"/>
    </linearGradient>
  </defs>
`)
	fmt.Fprintf(&b, `  <rect x="%s" y="%s" width="%s" height="%s" rx="%s" fill="url(#bg)"/>`+"\n",
		f(iconInset), f(iconInset), f(1-2*iconInset), f(1-2*iconInset), f(cornerR))
	fmt.Fprintf(&b, `  <g fill="#ffffff" stroke="#ffffff" stroke-width="%s" stroke-linecap="round">`+"\n", f(spokeW))
	for _, nd := range nodes() {
		fmt.Fprintf(&b, `    <line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", f(hubX), f(hubY), f(nd[0]), f(nd[1]))
	}
	fmt.Fprintf(&b, `    <circle cx="%s" cy="%s" r="%s" stroke="none"/>`+"\n", f(hubX), f(hubY), f(hubR))
	for _, nd := range nodes() {
		fmt.Fprintf(&b, `    <circle cx="%s" cy="%s" r="%s" stroke="none"/>`+"\n", f(nd[0]), f(nd[1]), f(nodeR))
	}
	fmt.Fprintf(&b, "  </g>\n</svg>\n")
	return b.Bytes()
}

func writePNG(path string, img image.Image) {
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&b, img); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

func main() {
	dir := "assets"
	if _, err := os.Stat(filepath.Join(dir, "gen.go")); err != nil {
		dir = "." // run from inside assets/
	}
	for _, size := range []int{16, 32, 48, 64, 128, 256, 512} {
		writePNG(filepath.Join(dir, "icons", fmt.Sprintf("icon-%d.png", size)), render(size, appLayers()))
	}
	writePNG(filepath.Join(dir, "icon.png"), render(512, appLayers()))
	if err := os.WriteFile(filepath.Join(dir, "icon.svg"), svg(), 0o644); err != nil {
		log.Fatal(err)
	}
	for _, state := range []string{"idle", "pending", "down", "paused"} {
		writePNG(filepath.Join(dir, "tray", "tray-"+state+".png"), render(64, trayLayers(state)))
	}
}
