package selcheck

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/policy"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/internal/testsite"
)

func TestMain(m *testing.M) { testsite.Main(m) }

const crowdedSecret = "correct-horse-battery-staple-0123456789"

const crowdedMap = `t.top.b1: {css: "#b1"}
t.top.b2: {css: "#b2"}
t.top.b3: {css: "#b3"}
t.top.b4: {css: "#b4"}
t.top.b5: {css: "#b5"}
t.top.b6: {css: "#b6"}
t.top.first_button_again_by_a_much_longer_name: {css: ".row button:first-child"}
t.note: {css: "#note"}
t.go: {css: "#go"}
t.missing: {css: "#missing"}
`

type rect struct{ L, T, R, B float64 }

func (a rect) overlaps(b rect) bool { return a.L < b.R && b.L < a.R && a.T < b.B && b.T < a.B }
func (a rect) inside(b rect) bool {
	const eps = 0.5
	return a.L >= b.L-eps && a.T >= b.T-eps && a.R <= b.R+eps && a.B <= b.B+eps
}

// TestReportLayout (issue 23): the selectors report, shown by headless
// Chromium, has labels that overlap neither each other nor anything outside
// the picture (its table header), and boxes where the elements are in the
// picture after secrets were masked (the masked text is shorter and moves
// what follows up). Failed before: six labels over each other at the top,
// above the picture, and t.go's box about 100 px below the blue button.
func TestReportLayout(t *testing.T) {
	t.Parallel() // its own folder and browser context
	testsite.NeedChromium(t)
	dir := t.TempDir()
	mapPath := filepath.Join(dir, "selectors.yaml")
	if err := os.WriteFile(mapPath, []byte(crowdedMap), 0o644); err != nil {
		t.Fatal(err)
	}
	m, ps := selector.Load(mapPath)
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	fixture, err := filepath.Abs(filepath.Join("..", "..", "testdata", "selcheck", "crowded.html"))
	if err != nil {
		t.Fatal(err)
	}
	b := testsite.Browser(t)
	tab := testsite.NewPage(t, b, "")
	if err := tab.SetViewport(&proto.EmulationSetDeviceMetricsOverride{Width: 1280, Height: 800, DeviceScaleFactor: 1}); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "report")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := Run(ctx, tab, []string{fixture}, Options{
		Map: m, MapPath: mapPath, ReportDir: report,
		Redactor: policy.NewRedactor(map[string]string{"pw": crowdedSecret}), Secrets: []string{crowdedSecret},
	})
	if err != nil || len(res) != 1 || res[0].Error != "" {
		t.Fatalf("run: %v %+v", err, res)
	}

	page := testsite.NewPage(t, b, "file://"+filepath.Join(report, "index.html"))
	if err := page.SetViewport(&proto.EmulationSetDeviceMetricsOverride{Width: 1400, Height: 900, DeviceScaleFactor: 1}); err != nil {
		t.Fatal(err)
	}
	shots := os.Getenv("TOOLWRIGHT_SHOTS") // keep the picture for a person to look at
	if shots == "" {
		shots = t.TempDir()
	}
	shot, err := page.Screenshot(true, &proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(shots, "selectors-report-crowded.png"), shot, 0o644); err != nil {
		t.Fatal(err)
	}
	rectOf := func(sel string) []rect {
		var rs []rect
		v := page.MustEval(`(sel) => [...document.querySelectorAll(sel)].map(e => { const r = e.getBoundingClientRect(); return [r.left + scrollX, r.top + scrollY, r.right + scrollX, r.bottom + scrollY]; })`, sel)
		for _, r := range v.Arr() {
			a := r.Arr()
			rs = append(rs, rect{a[0].Num(), a[1].Num(), a[2].Num(), a[3].Num()})
		}
		return rs
	}
	labels := rectOf(".shot .label")
	names := page.MustEval(`() => [...document.querySelectorAll('.shot .label')].map(e => e.dataset.target)`).Arr()
	// One label per target that has a box (t.missing has none).
	if len(labels) != 9 {
		t.Fatalf("%d labels, want 9 (one per boxed target)", len(labels))
	}
	shots0 := rectOf(".shot")
	outside := append(append(rectOf("thead"), rectOf("h1")...), append(rectOf("h2"), rectOf(".summary")...)...)
	for i, a := range labels {
		if len(shots0) != 1 || !a.inside(shots0[0]) {
			t.Errorf("label of %s at %v is outside the picture %v", names[i].Str(), a, shots0)
		}
		for _, o := range outside {
			if a.overlaps(o) {
				t.Errorf("label of %s at %v overlaps the page around the picture at %v", names[i].Str(), a, o)
			}
		}
		for j := i + 1; j < len(labels); j++ {
			if a.overlaps(labels[j]) {
				t.Errorf("labels of %s %v and %s %v overlap", names[i].Str(), a, names[j].Str(), labels[j])
			}
		}
	}

	// t.go's box is where the blue button is in the picture: blue inside,
	// not blue just outside, above and below.
	data, err := os.ReadFile(filepath.Join(report, "page-1.png"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	imgRect := rectOf(".shot img")
	boxes := rectOf(`.box[data-target="t.go"]`)
	if len(imgRect) != 1 || len(boxes) != 1 {
		t.Fatalf("%d images, %d boxes of t.go", len(imgRect), len(boxes))
	}
	scale := float64(img.Bounds().Dx()) / (imgRect[0].R - imgRect[0].L)
	blue := func(x, y float64) bool {
		px := image.Point{int((x - imgRect[0].L) * scale), int((y - imgRect[0].T) * scale)}
		if !px.In(img.Bounds()) {
			return false
		}
		r, g, bl, _ := img.At(px.X, px.Y).RGBA()
		return r>>8 < 40 && g>>8 < 40 && bl>>8 > 215
	}
	bx := boxes[0]
	cx, cy := (bx.L+bx.R)/2, (bx.T+bx.B)/2
	var wrong []string
	for _, p := range [][2]float64{{cx, cy}, {bx.L + 4, bx.T + 4}, {bx.R - 4, bx.T + 4}, {bx.L + 4, bx.B - 4}, {bx.R - 4, bx.B - 4}} {
		if !blue(p[0], p[1]) {
			wrong = append(wrong, fmt.Sprintf("not blue inside at (%.0f,%.0f)", p[0], p[1]))
		}
	}
	for _, p := range [][2]float64{{cx, bx.T - 4}, {cx, bx.B + 4}, {bx.R + 4, cy}} {
		if blue(p[0], p[1]) {
			wrong = append(wrong, fmt.Sprintf("blue outside at (%.0f,%.0f)", p[0], p[1]))
		}
	}
	if len(wrong) > 0 {
		t.Errorf("t.go's box %v is not on the blue button: %v", bx, wrong)
	}
}
