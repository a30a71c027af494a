package kinds

import (
	"context"
	"strings"
	"time"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/step"
)

func init() {
	step.Register(&step.Spec{
		Kind:  "wait",
		Doc:   "Wait until a target is visible or hidden, a text appears anywhere on the page, or the URL matches a glob.",
		Risk:  "read",
		OneOf: []string{"visible", "hidden", "text", "url"},
		Fields: []step.Field{
			{Name: "visible", Type: step.Target, Doc: "wait until this target is visible"},
			{Name: "hidden", Type: step.Target, Doc: "wait until this target is gone or hidden"},
			{Name: "text", Type: step.Template, Doc: "wait until this text appears anywhere on the page"},
			{Name: "url", Type: step.Template, Doc: "wait until the page URL matches this glob (* matches anything)"},
			{Name: "timeout", Type: step.Duration, Doc: "how long to wait (default: the step's timeout)"},
		},
		Example: "wait: {visible: acme.catalog.search_box}",
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			if d := s.Dur("timeout"); d > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, d)
				defer cancel()
			}
			start := time.Now()
			switch {
			case s.Has("visible"):
				_, err := x.Find(ctx, s.Str("visible"), step.FindOpt{Visible: true})
				return err
			case s.Has("hidden"):
				name := s.Str("hidden")
				err := poll(ctx, func() (bool, error) {
					_, err := x.Find(ctx, name, step.FindOpt{Visible: true, Once: true})
					if errs.CodeOf(err) == errs.TargetNotFound {
						return true, nil
					}
					return false, err
				})
				return timeoutErr(ctx, err, errs.TargetNotFound, "target %s was still visible after %s", name, waited(start))
			case s.Has("text"):
				text, err := x.Text(ctx, s.Tmpl("text"))
				if err != nil {
					return err
				}
				page, err := x.Page(ctx)
				if err != nil {
					return err
				}
				want := selector.Normalize(text)
				err = poll(ctx, func() (bool, error) {
					res, err := page.Eval(`() => document.body ? document.body.innerText : ''`)
					if err != nil {
						return false, err
					}
					return strings.Contains(selector.Normalize(res.Value.Str()), want), nil
				})
				return timeoutErr(ctx, err, errs.TargetNotFound, "text %q did not appear on %s after %s", text, pagePath(page), waited(start))
			default:
				glob, err := x.Text(ctx, s.Tmpl("url"))
				if err != nil {
					return err
				}
				page, err := x.Page(ctx)
				if err != nil {
					return err
				}
				var last string
				err = poll(ctx, func() (bool, error) {
					info, err := page.Info()
					if err != nil {
						return false, err
					}
					last = info.URL
					return globMatch(glob, last), nil
				})
				return timeoutErr(ctx, err, errs.NavigationFailed, "the page URL did not match %q after %s (it is %s)", glob, waited(start), pathOf(last))
			}
		},
	})
}
