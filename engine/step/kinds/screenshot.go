package kinds

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"math"
	"os"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/step"
	"github.com/toolwright/toolwright/engine/tmpl"
)

func init() {
	step.Register(&step.Spec{
		Kind:     "screenshot",
		Synonyms: []string{"capture", "snapshot"},
		Doc:      "Save a PNG of the page or of one target under the state dir; the result is a file reference, never image bytes.",
		Risk:     "read",
		Fields: []step.Field{
			{Name: "target", Type: step.Target, Doc: "only this element (default: the viewport)"},
			{Name: "full_page", Type: step.Bool, Doc: "the whole scrollable page (at most 16384 px each way and 16384×1280 px in all: a larger page is clipped from its top left and the result says clipped: true)"},
			{Name: "into", Type: step.VarName, Doc: "store {file, uri, bytes, width, height} in this variable",
				Yields: func(*step.Checker, *step.Step) tmpl.Shape {
					return tmpl.Shape{Kind: "object", Fields: []string{"file", "uri", "bytes", "width", "height", "clipped", "page_width", "page_height"}}
				}},
		},
		Example: "screenshot: {full_page: true, into: shot}",
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			arts, err := step.Need[step.Artifacts](x, s)
			if err != nil {
				return err
			}
			// Fields and text holding a secret are hidden while capturing.
			restore, err := arts.MaskSecrets(ctx)
			if err != nil {
				return err
			}
			defer restore()
			var data []byte
			var clipped *clip
			if s.Str("target") != "" {
				el, ferr := element(ctx, x, s, "target", 0)
				if ferr != nil {
					return ferr
				}
				data, err = el.Screenshot(proto.PageCaptureScreenshotFormatPng, 0)
			} else {
				page, perr := x.Page(ctx)
				if perr != nil {
					return perr
				}
				if s.Bool("full_page") {
					data, clipped, err = fullPage(page)
				} else {
					data, err = page.Screenshot(false, &proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng})
				}
			}
			if err != nil {
				return err
			}
			if max := arts.MaxArtifactBytes(); max > 0 && int64(len(data)) > max {
				return errs.New(errs.LimitExceeded, "the screenshot is %d bytes, above limits.max_artifact_bytes (%d): screenshot a target instead of the page, or raise the limit", len(data), max)
			}
			path, uri, err := arts.Artifact("png")
			if err != nil {
				return err
			}
			if err := os.WriteFile(path, data, 0o600); err != nil {
				return err
			}
			ref := map[string]any{"file": path, "uri": uri, "bytes": len(data)}
			if cfg, err := png.DecodeConfig(bytes.NewReader(data)); err == nil {
				ref["width"], ref["height"] = cfg.Width, cfg.Height
			}
			if clipped != nil {
				// Say so: the page was larger than a screenshot may be.
				ref["clipped"], ref["page_width"], ref["page_height"] = true, clipped.width, clipped.height
			}
			if into := s.Str("into"); into != "" {
				x.SetVar(into, ref, false)
			}
			return nil
		},
	})
}

// MaxShotSide bounds a full-page screenshot's width and height in CSS
// pixels (Chromium cannot capture much more in one piece).
const MaxShotSide = 16384

// MaxShotPixels bounds a full-page screenshot's area: a page wider than
// the viewport is cut in height as well, so a capture never nears
// MaxShotSide² (a 16384 px square is a gigabyte of pixels Chromium takes
// past any step timeout to encode). A page at most 1280 px wide keeps its
// full MaxShotSide of height.
const MaxShotPixels = MaxShotSide * 1280

// clip is the size of a page that was larger than the bounds.
type clip struct{ width, height int }

// fullPage captures the whole page, clipped to MaxShotSide each way and to
// MaxShotPixels in all, from the top left (clipped is nil when nothing was
// cut).
func fullPage(page *rod.Page) (data []byte, clipped *clip, err error) {
	m, err := proto.PageGetLayoutMetrics{}.Call(page)
	if err != nil {
		return nil, nil, err
	}
	if m.CSSContentSize == nil {
		return nil, nil, errors.New("the page reported no content size")
	}
	w, h := math.Ceil(m.CSSContentSize.Width), math.Ceil(m.CSSContentSize.Height)
	cw, ch := max(1, min(w, MaxShotSide)), max(1, min(h, MaxShotSide))
	ch = max(1, min(ch, math.Floor(MaxShotPixels/cw)))
	if cw < w || ch < h {
		clipped = &clip{width: int(w), height: int(h)}
	}
	w, h = cw, ch
	shot, err := proto.PageCaptureScreenshot{
		Format:                proto.PageCaptureScreenshotFormatPng,
		Clip:                  &proto.PageViewport{X: 0, Y: 0, Width: w, Height: h, Scale: 1},
		CaptureBeyondViewport: true,
	}.Call(page)
	if err != nil {
		return nil, nil, err
	}
	return shot.Data, clipped, nil
}
