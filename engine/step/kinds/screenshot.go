package kinds

import (
	"bytes"
	"context"
	"image/png"
	"os"

	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/step"
)

func init() {
	step.Register(&step.Spec{
		Kind: "screenshot",
		Doc:  "Save a PNG of the page or of one target under the state dir; the result is a file reference, never image bytes.",
		Risk: "read",
		Fields: []step.Field{
			{Name: "target", Type: step.Target, Doc: "only this element (default: the viewport)"},
			{Name: "full_page", Type: step.Bool, Doc: "the whole scrollable page"},
			{Name: "into", Type: step.VarName, Doc: "store {file, uri, bytes, width, height} in this variable"},
		},
		Example: "screenshot: {full_page: true, into: shot}",
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			var data []byte
			var err error
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
				data, err = page.Screenshot(s.Bool("full_page"), &proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng})
			}
			if err != nil {
				return err
			}
			path, uri, err := x.Artifact("png")
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
			if into := s.Str("into"); into != "" {
				x.SetVar(into, ref, false)
			}
			return nil
		},
	})
}
