// Package assets holds the icons of capabilities, embedded in the binary.
//
// The images are drawn by gen.go (go run assets/gen.go from the repository
// root) and committed; nothing here is generated at build time. The values
// are plain bytes so the package builds without cgo and without Fyne: the ui
// package wraps them in fyne resources, packaging and installers copy them.
package assets

import (
	_ "embed"
	"fmt"
)

// Icon is the application icon, a 512x512 PNG. FyneApp.toml points at the
// same file.
//
//go:embed icon.png
var Icon []byte

// IconSVG is the application icon as SVG, for desktops that prefer scalable
// icons (hicolor/scalable/apps).
//
//go:embed icon.svg
var IconSVG []byte

// Tray icons, 64x64 PNGs, one per hub state. Each is the application icon;
// all but TrayIdle carry a badge in the lower right corner.
var (
	// TrayIdle: the hub runs, nothing needs attention.
	//
	//go:embed tray/tray-idle.png
	TrayIdle []byte

	// TrayPending: at least one tool call waits for an approval (amber "!").
	//
	//go:embed tray/tray-pending.png
	TrayPending []byte

	// TrayDown: at least one upstream source is down (red cross).
	//
	//go:embed tray/tray-down.png
	TrayDown []byte

	// TrayPaused: the hub is paused (greyed icon, pause bars).
	//
	//go:embed tray/tray-paused.png
	TrayPaused []byte
)

//go:embed icons/icon-16.png
var icon16 []byte

//go:embed icons/icon-32.png
var icon32 []byte

//go:embed icons/icon-48.png
var icon48 []byte

//go:embed icons/icon-64.png
var icon64 []byte

//go:embed icons/icon-128.png
var icon128 []byte

//go:embed icons/icon-256.png
var icon256 []byte

//go:embed icons/icon-512.png
var icon512 []byte

// IconSizes lists the sizes, in pixels, for which IconPNG has an image, smallest first.
var IconSizes = []int{16, 32, 48, 64, 128, 256, 512}

// IconPNG returns the application icon as a size x size PNG. size must be
// one of IconSizes.
func IconPNG(size int) ([]byte, error) {
	switch size {
	case 16:
		return icon16, nil
	case 32:
		return icon32, nil
	case 48:
		return icon48, nil
	case 64:
		return icon64, nil
	case 128:
		return icon128, nil
	case 256:
		return icon256, nil
	case 512:
		return icon512, nil
	}
	return nil, fmt.Errorf("no %dx%d icon (sizes: %v)", size, size, IconSizes)
}
