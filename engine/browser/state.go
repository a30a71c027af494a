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
// `import` reads): its cookies, and the local and session storage of the
// origins its page visited.
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

// StateOrigin is one origin's local storage, and its session storage:
// Playwright's format has no place for it (Playwright ignores the extra
// key), but a site that keeps its sign-in there (a token in
// sessionStorage) is signed out without it.
type StateOrigin struct {
	Origin         string      `json:"origin"`
	LocalStorage   []StateItem `json:"localStorage"`
	SessionStorage []StateItem `json:"sessionStorage,omitempty"`
}

// StateItem is one local or session storage entry.
type StateItem struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Empty reports whether the state holds nothing: no cookie and no
// storage item of any origin.
func (s *StorageState) Empty() bool {
	for _, o := range s.Origins {
		if len(o.LocalStorage) > 0 || len(o.SessionStorage) > 0 {
			return false
		}
	}
	return len(s.Cookies) == 0
}

// Summary says what the state holds, without a value: "2 cookies, 1
// origin (3 local, 1 session storage items)", or "empty".
func (s *StorageState) Summary() string {
	if s.Empty() {
		return "empty"
	}
	local, session := 0, 0
	for _, o := range s.Origins {
		local += len(o.LocalStorage)
		session += len(o.SessionStorage)
	}
	return fmt.Sprintf("%s, %s (%d local, %d session storage items)",
		plural(len(s.Cookies), "cookie"), plural(len(s.Origins), "origin"), local, session)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

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
		if o.LocalStorage == nil { // Playwright reads localStorage as a list, never null
			s.Origins[i].LocalStorage = []StateItem{}
		}
	}
	return &s, nil
}

// storageJS reads the top document's origin and its local and session
// storage, leaving out restoreJS's own mark.
const storageJS = `() => { try { const o = location.origin; if (!/^https?:/.test(o)) return null;
	const read = (st) => { const items = []; for (let i = 0; i < st.length; i++) { const k = st.key(i); if (k !== '` + restoredMark + `') items.push({name: k, value: st.getItem(k)}); } return items; };
	return {origin: o, localStorage: read(localStorage), sessionStorage: read(sessionStorage)}; } catch (e) { return null; } }`

// CaptureState reads the environment's cookies (every cookie of its
// browser context) and its page's local and session storage.
func (e *Env) CaptureState(ctx context.Context) (*StorageState, error) {
	return CaptureState(ctx, e.conn.browser, e.ctxID, e.page)
}

// CaptureState reads the cookies of browser context ctxID of b and the
// local and session storage of page's origin: an environment's sign-in state, also
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
	obj, err := page.Context(ctx).Evaluate(rod.Eval(storageJS).ByUser())
	if err == nil && !obj.Value.Nil() {
		var o StateOrigin
		if json.Unmarshal([]byte(obj.Value.JSON("", "")), &o) == nil && o.Origin != "" && (len(o.LocalStorage) > 0 || len(o.SessionStorage) > 0) {
			st.Origins = append(st.Origins, o)
		}
	}
	return st, nil
}

// restoredMark is the session storage key restoreJS marks a tab with.
const restoredMark = "__toolwright_restored"

// restoreJS puts saved local and session storage back, once per tab and
// origin (session storage is the tab's own), before the page's own
// scripts run.
const restoreJS = `(() => { const saved = %s; try { const o = saved[location.origin]; if (!o || sessionStorage.getItem('` + restoredMark + `')) return;
	for (const it of o.local || []) localStorage.setItem(it.name, it.value);
	for (const it of o.session || []) sessionStorage.setItem(it.name, it.value);
	sessionStorage.setItem('` + restoredMark + `', '1'); } catch (e) {} })()`

// RestoreState puts st into the environment before its first step: its
// cookies into the browser context, its local and session storage into
// every document of a saved origin the page opens (before the document's
// scripts run).
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
		type items struct {
			Local   []StateItem `json:"local"`
			Session []StateItem `json:"session"`
		}
		saved := map[string]items{}
		for _, o := range st.Origins {
			saved[o.Origin] = items{o.LocalStorage, o.SessionStorage}
		}
		b, err := json.Marshal(saved)
		if err != nil {
			return refused, err
		}
		if _, err := (proto.PageAddScriptToEvaluateOnNewDocument{Source: fmt.Sprintf(restoreJS, b)}).Call(e.page.Context(ctx)); err != nil {
			return refused, fmt.Errorf("restore local and session storage: %w", err)
		}
	}
	return refused, nil
}
