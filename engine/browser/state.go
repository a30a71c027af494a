package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// StorageState is an environment's sign-in state in Playwright's
// storage-state format (what `toolwright sessions export` writes and
// `import` reads): its cookies, and the local storage of the origins its
// page visited.
type StorageState struct {
	Cookies []StateCookie `json:"cookies"`
	Origins []StateOrigin `json:"origins"`
}

// StateCookie is one cookie as Playwright writes it; Expires is Unix
// seconds, -1 for a session cookie.
type StateCookie struct {
	Name     string  `json:"name"`
	Value    string  `json:"value"`
	Domain   string  `json:"domain"`
	Path     string  `json:"path"`
	Expires  float64 `json:"expires"`
	HTTPOnly bool    `json:"httpOnly"`
	Secure   bool    `json:"secure"`
	SameSite string  `json:"sameSite"` // Strict | Lax | None
}

// StateOrigin is one origin's local storage.
type StateOrigin struct {
	Origin       string      `json:"origin"`
	LocalStorage []StateItem `json:"localStorage"`
}

// StateItem is one local storage entry.
type StateItem struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Empty reports whether the state holds nothing.
func (s *StorageState) Empty() bool { return len(s.Cookies) == 0 && len(s.Origins) == 0 }

// Merge adds old's origins that s does not have (the page shows one
// origin at a time; what it saved of others stays).
func (s *StorageState) Merge(old *StorageState) {
	if old == nil {
		return
	}
	have := map[string]bool{}
	for _, o := range s.Origins {
		have[o.Origin] = true
	}
	for _, o := range old.Origins {
		if !have[o.Origin] {
			s.Origins = append(s.Origins, o)
		}
	}
}

// ParseStorageState reads Playwright's storage-state JSON, checking what
// a restore needs.
func ParseStorageState(b []byte) (*StorageState, error) {
	var s StorageState
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("not a storage state ({cookies: [...], origins: [...]}): %v", err)
	}
	for i, c := range s.Cookies {
		if c.Name == "" || c.Domain == "" {
			return nil, fmt.Errorf("cookies[%d]: name and domain are required", i)
		}
		switch c.SameSite {
		case "", "Strict", "Lax", "None":
		default:
			return nil, fmt.Errorf("cookies[%d]: sameSite %q: want Strict, Lax or None", i, c.SameSite)
		}
	}
	for i, o := range s.Origins {
		if !strings.HasPrefix(o.Origin, "http://") && !strings.HasPrefix(o.Origin, "https://") {
			return nil, fmt.Errorf("origins[%d]: origin %q: want http(s)://host[:port]", i, o.Origin)
		}
	}
	return &s, nil
}

// localStorageJS reads the top document's origin and local storage.
const localStorageJS = `() => { try { const o = location.origin; if (!/^https?:/.test(o)) return null; const items = []; for (let i = 0; i < localStorage.length; i++) { const k = localStorage.key(i); items.push({name: k, value: localStorage.getItem(k)}); } return {origin: o, localStorage: items}; } catch (e) { return null; } }`

// CaptureState reads the environment's cookies (every cookie of its
// browser context) and its page's local storage.
func (e *Env) CaptureState(ctx context.Context) (*StorageState, error) {
	return CaptureState(ctx, e.conn.browser, e.ctxID, e.page)
}

// CaptureState reads the cookies of browser context ctxID of b and the
// local storage of page's origin: an environment's sign-in state, also
// from a process that only attached to its browser (the ui).
func CaptureState(ctx context.Context, b *rod.Browser, ctxID proto.BrowserBrowserContextID, page *rod.Page) (*StorageState, error) {
	res, err := proto.StorageGetCookies{BrowserContextID: ctxID}.Call(b.Context(ctx))
	if err != nil {
		return nil, fmt.Errorf("read cookies: %w", err)
	}
	st := &StorageState{Cookies: []StateCookie{}, Origins: []StateOrigin{}}
	for _, c := range res.Cookies {
		exp := float64(c.Expires)
		if c.Session {
			exp = -1
		}
		ss := string(c.SameSite)
		if ss == "" {
			ss = "Lax"
		}
		st.Cookies = append(st.Cookies, StateCookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path,
			Expires: exp, HTTPOnly: c.HTTPOnly, Secure: c.Secure, SameSite: ss})
	}
	obj, err := page.Context(ctx).Evaluate(rod.Eval(localStorageJS).ByUser())
	if err == nil && !obj.Value.Nil() {
		var o StateOrigin
		if json.Unmarshal([]byte(obj.Value.JSON("", "")), &o) == nil && o.Origin != "" && len(o.LocalStorage) > 0 {
			st.Origins = append(st.Origins, o)
		}
	}
	return st, nil
}

// restoreJS puts saved local storage back, once per tab and origin,
// before the page's own scripts run.
const restoreJS = `(() => { const saved = %s; try { const items = saved[location.origin]; if (!items || sessionStorage.getItem('__toolwright_restored')) return; for (const it of items) localStorage.setItem(it.name, it.value); sessionStorage.setItem('__toolwright_restored', '1'); } catch (e) {} })()`

// RestoreState puts st into the environment before its first step: its
// cookies into the browser context, its local storage into every document
// of a saved origin the page opens (before the document's scripts run).
// It returns the cookies Chromium refused (CookieLabel each), which are
// left out while the rest is restored.
func (e *Env) RestoreState(ctx context.Context, st *StorageState) (refused []string, err error) {
	if st == nil || st.Empty() {
		return nil, nil
	}
	if len(st.Cookies) > 0 {
		if refused, err = e.setCookies(ctx, st.Cookies); err != nil {
			return refused, err
		}
	}
	if len(st.Origins) > 0 {
		saved := map[string][]StateItem{}
		for _, o := range st.Origins {
			saved[o.Origin] = o.LocalStorage
		}
		b, err := json.Marshal(saved)
		if err != nil {
			return refused, err
		}
		if _, err := (proto.PageAddScriptToEvaluateOnNewDocument{Source: fmt.Sprintf(restoreJS, b)}).Call(e.page.Context(ctx)); err != nil {
			return refused, fmt.Errorf("restore local storage: %w", err)
		}
	}
	return refused, nil
}
