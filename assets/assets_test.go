package assets

import (
	"bytes"
	"image/png"
	"strings"
	"testing"
)

func TestIconSizes(t *testing.T) {
	for _, size := range IconSizes {
		b, err := IconPNG(size)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("icon %d: %v", size, err)
		}
		if got := img.Bounds().Dx(); got != size || img.Bounds().Dy() != size {
			t.Errorf("icon %d: decoded as %v", size, img.Bounds())
		}
	}
	if _, err := IconPNG(17); err == nil {
		t.Error("IconPNG(17): want an error")
	}
}

func TestTrayIconsDiffer(t *testing.T) {
	icons := map[string][]byte{"idle": TrayIdle, "pending": TrayPending, "down": TrayDown, "paused": TrayPaused, "app": Icon}
	seen := map[string]string{}
	for name, b := range icons {
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if name != "app" && img.Bounds().Dx() != 64 {
			t.Errorf("%s: %v, want 64x64", name, img.Bounds())
		}
		if other, ok := seen[string(b)]; ok {
			t.Errorf("%s and %s are the same image", name, other)
		}
		seen[string(b)] = name
	}
}

func TestSVG(t *testing.T) {
	s := string(IconSVG)
	if !strings.HasPrefix(s, "<svg") || !strings.Contains(s, "</svg>") {
		t.Errorf("IconSVG does not look like an SVG document: %.60q", s)
	}
}
