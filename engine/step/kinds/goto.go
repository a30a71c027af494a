package kinds

import (
	"context"
	"net/url"
	"strings"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/step"
)

func init() {
	step.Register(&step.Spec{
		Kind:        "goto",
		Synonyms:    []string{"navigate", "open", "visit", "go", "url", "go_to", "open_url"},
		Doc:         "Open a URL in the environment's page. The host must be allowed by policy.allowed_hosts. A main document answering with a status outside expect_status (by default any 4xx or 5xx) is navigation_failed.",
		Short:       "url",
		Risk:        "read",
		TimeoutCode: errs.NavigationFailed,
		Fields: []step.Field{
			{Name: "url", Type: step.Template, Required: true, URL: true, Doc: "the address to open (http or https; a templated URL may not be data: or javascript:); values a template puts in after the URL's start are URL-encoded (query or path), urlraw(x) puts x in as it is"},
			{Name: "wait_until", Type: step.Enum, Enum: []string{"load", "domcontentloaded"}, Default: "load", Doc: "which page event ends the step"},
			{Name: "expect_status", Type: step.Ints, Doc: "the HTTP statuses of the main document that count as loaded, like [200, 404] (default: any below 400)"},
		},
		Example: "goto: ${{ config.acme_base }}/login.html",
		Check: func(c *step.Checker, s *step.Step) {
			for _, n := range s.Ints("expect_status") {
				if n < 100 || n > 599 {
					c.Addf(s.Pos, lint.BadValue, "goto expect_status: %d is not an HTTP status (100-599)", n)
				}
			}
		},
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			t := s.Tmpl("url")
			u, err := x.Text(ctx, t)
			if err != nil {
				return err
			}
			if !t.IsLiteral() {
				if scheme := schemeOf(u); scheme == "data" || scheme == "javascript" {
					return errs.New(errs.HostNotAllowed, "goto: a %s: URL made from a template is refused, like a host outside policy.allowed_hosts", scheme)
				}
			}
			status, err := x.Navigate(ctx, u, s.Str("wait_until"))
			if err != nil {
				return err
			}
			return checkStatus(ctx, x, s, u, status)
		},
	})
}

func schemeOf(raw string) string {
	if p, err := url.Parse(strings.TrimSpace(raw)); err == nil {
		return strings.ToLower(p.Scheme)
	}
	if i := strings.IndexByte(raw, ':'); i > 0 {
		return strings.ToLower(strings.TrimSpace(raw[:i]))
	}
	return ""
}

// statusJS reads the HTTP status of the page's main document (0 when the
// browser does not know one: about:blank, data:, a cached page).
const statusJS = `() => { const n = performance.getEntriesByType('navigation')[0]; return n && n.responseStatus ? n.responseStatus : 0 }`

// checkStatus fails the step when the main document's status (the one the
// browser reported, else the page's own record) is not expected.
func checkStatus(ctx context.Context, x step.Exec, s *step.Step, u string, status int) error {
	scheme := schemeOf(u)
	if scheme != "http" && scheme != "https" {
		return nil
	}
	if status == 0 {
		page, err := x.Page(ctx)
		if err != nil {
			return err
		}
		res, err := page.Eval(statusJS)
		if err != nil {
			return err
		}
		status = res.Value.Int()
	}
	if status == 0 {
		return nil
	}
	want := s.Ints("expect_status")
	if want == nil {
		if status < 400 {
			return nil
		}
		return errs.New(errs.NavigationFailed, "%s answered HTTP %d", selector.URLPath(u), status)
	}
	for _, w := range want {
		if w == status {
			return nil
		}
	}
	return errs.New(errs.NavigationFailed, "%s answered HTTP %d, expected one of %v", selector.URLPath(u), status, want)
}
