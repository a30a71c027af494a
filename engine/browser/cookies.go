package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"
)

// Chromium's bounds on a cookie it sets (net/cookies: a name and value
// together, a path; larger ones are refused, not cut).
const (
	maxCookieNameValue = 4096
	maxCookiePath      = 1024
)

// CookieProblem says why Chromium refuses to set c ("" when it takes it),
// naming the rule and never the value. Chromium refuses a whole
// Storage.setCookies call for one such cookie, so `sessions import` checks
// each before it says saved. TestCookieRulesAgreeWithChromium holds these
// rules to what Chromium answers.
func CookieProblem(c StateCookie) string {
	switch {
	case c.Name == "":
		return "it has no name"
	case c.Domain == "":
		return "it has no domain"
	case strings.ContainsAny(c.Name, "=;") || hasControl(c.Name):
		return "its name holds '=', ';' or a control character"
	case strings.Contains(c.Value, ";") || hasControl(c.Value):
		return "its value holds ';' or a control character (a tab too)"
	case len(c.Name)+len(c.Value) > maxCookieNameValue:
		return fmt.Sprintf("its name and value are %d bytes; Chromium takes at most %d", len(c.Name)+len(c.Value), maxCookieNameValue)
	case c.Path != "" && !strings.HasPrefix(c.Path, "/"):
		return "its path does not start with /"
	case strings.Contains(c.Path, ";") || hasControl(c.Path):
		return "its path holds ';' or a control character"
	case len(c.Path) > maxCookiePath:
		return fmt.Sprintf("its path is %d bytes; Chromium takes at most %d", len(c.Path), maxCookiePath)
	}
	return prefixProblem(c)
}

// prefixProblem checks the cookie name prefixes, which Chromium matches
// in any case (RFC 6265bis 4.1.3).
func prefixProblem(c StateCookie) string {
	name := strings.ToLower(c.Name)
	switch {
	case strings.HasPrefix(name, "__secure-") && !c.Secure:
		return "a __Secure- cookie must be secure"
	case !strings.HasPrefix(name, "__host-"):
		return ""
	case !c.Secure:
		return "a __Host- cookie must be secure"
	case c.Path != "" && c.Path != "/":
		return "a __Host- cookie must have path /"
	case strings.HasPrefix(c.Domain, "."):
		return "a __Host- cookie must be host-only (a domain without a leading dot)"
	}
	return ""
}

func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

// CookieLabel names a cookie in a message: its name, domain and path,
// never its value.
func CookieLabel(c StateCookie) string {
	return fmt.Sprintf("%q (domain %s, path %s)", c.Name, c.Domain, c.Path)
}

// CookieProblems lists the cookies of s Chromium would refuse, one line
// each, naming the cookie and the rule (never its value).
func (s *StorageState) CookieProblems() []string {
	var out []string
	for i, c := range s.Cookies {
		if p := CookieProblem(c); p != "" {
			out = append(out, fmt.Sprintf("cookies[%d] %s: %s", i, CookieLabel(c), p))
		}
	}
	return out
}

// setCookies puts cookies into the environment's browser context and
// returns the labels of those Chromium refused. Chromium refuses a whole
// Storage.setCookies call for one cookie it does not take (and sets none),
// so after a refused batch each cookie is set on its own: one bad cookie
// loses only itself, never the whole session.
func (e *Env) setCookies(ctx context.Context, cookies []StateCookie) ([]string, error) {
	params := make([]*proto.NetworkCookieParam, 0, len(cookies))
	for _, c := range cookies {
		p := &proto.NetworkCookieParam{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path,
			Secure: c.Secure, HTTPOnly: c.HTTPOnly, SameSite: proto.NetworkCookieSameSite(c.SameSite)}
		if c.Expires > 0 {
			p.Expires = proto.TimeSinceEpoch(c.Expires)
		}
		if p.Path == "" {
			p.Path = "/"
		}
		params = append(params, p)
	}
	set := func(ps []*proto.NetworkCookieParam) error {
		return proto.StorageSetCookies{Cookies: ps, BrowserContextID: e.ctxID}.Call(e.conn.browser.Context(ctx))
	}
	err := set(params)
	if err == nil || !refusedCookie(err) {
		return nil, wrapCookies(err)
	}
	var refused []string
	for i := range params {
		if err := set(params[i : i+1]); err != nil {
			if !refusedCookie(err) {
				return refused, wrapCookies(err)
			}
			refused = append(refused, CookieLabel(cookies[i]))
		}
	}
	return refused, nil
}

// refusedCookie reports Chromium's answer to a cookie it does not take
// ("Invalid cookie fields", invalid params), as opposed to a browser
// that cannot be reached.
func refusedCookie(err error) bool {
	var ce *cdp.Error
	return errors.As(err, &ce) && ce.Code == -32602
}

func wrapCookies(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("set cookies: %w", err)
}
