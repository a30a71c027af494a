package policy_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/toolwright/toolwright/engine/policy"
	"github.com/toolwright/toolwright/internal/testsite"
)

// browserSecrets hold the characters each encoder treats differently.
var browserSecrets = []string{
	"hunter2 &<x>/y z",
	"p@ss!'()*~+,;=?#[]$",
	`ü€😀 "quote"\back` + "`tick{}|^",
	"tab\there%25 50% &amp;",
	"simple-pass_word.1",
}

// TestRedactBrowserEncodings has Chromium encode each secret the ways a page
// or the browser itself does (encodeURIComponent, encodeURI, escape,
// URLSearchParams, the URL parser for path, query, fragment, user and
// password, href resolution, JSON.stringify, btoa, outerHTML of attributes
// and text) and checks the redactor replaces every one. Before: a space or
// one of !'()*~@&/+ survived encodeURIComponent, form and URL encoding.
func TestRedactBrowserEncodings(t *testing.T) {
	bin := testsite.NeedChromium(t)
	l := launcher.New().Bin(bin).Headless(true).Leakless(false).UserDataDir(t.TempDir()).
		Set("disable-gpu").Set("disable-background-networking").Set("disable-component-update").Set("no-first-run")
	if os.Geteuid() == 0 {
		l = l.NoSandbox(true)
	}
	u := l.MustLaunch()
	t.Cleanup(l.Kill)
	b := rod.New().ControlURL(u).MustConnect()
	t.Cleanup(func() { _ = b.Close() })
	page := b.MustPage("about:blank")
	const js = `(s) => {
		const out = {};
		out.encodeURIComponent = encodeURIComponent(s);
		out.encodeURI = encodeURI(s);
		out.escape = escape(s);
		out.URLSearchParams = new URLSearchParams({p: s}).toString().slice(2);
		const u = new URL("http://h.test/");
		u.pathname = "/" + s; out.pathname = u.pathname.slice(1);
		u.search = "?" + s; out.search = u.search.slice(1);
		u.hash = "#" + s; out.hash = u.hash.slice(1);
		const v = new URL("http://h.test/"); v.username = s; v.password = s;
		out.username = v.username; out.password = v.password;
		if (!s.includes("#")) { // a # in the value would end the query early
			const a = document.createElement("a"); a.href = "http://h.test/q?x=" + s + "#" + s;
			out.hrefQuery = a.href.slice("http://h.test/q?x=".length, a.href.indexOf("#"));
			out.hrefHash = a.href.slice(a.href.indexOf("#") + 1);
		}
		out.json = JSON.stringify(s).slice(1, -1);
		out.jsonTwice = JSON.stringify(JSON.stringify(s)).slice(3, -3);
		out.btoa = btoa(unescape(encodeURIComponent(s)));
		const d = document.createElement("div"); d.setAttribute("title", s); d.textContent = s;
		const h = d.outerHTML;
		out.attr = h.slice('<div title="'.length, h.indexOf('">'));
		out.text = h.slice(h.indexOf('">') + 2, -"</div>".length);
		const i = document.createElement("input"); i.setAttribute("value", s);
		out.inputAttr = i.outerHTML.slice('<input value="'.length, -2);
		return JSON.stringify(out);
	}`
	for _, s := range browserSecrets {
		red := policy.NewRedactor(map[string]string{"pw": s})
		var encs map[string]string
		if err := json.Unmarshal([]byte(page.MustEval(js, s).Str()), &encs); err != nil {
			t.Fatal(err)
		}
		for how, e := range encs {
			if e == "" {
				t.Errorf("%s of %q is empty", how, s)
				continue
			}
			if got := red.Redact("\x01" + e + "\x02"); got != "\x01[redacted:pw]\x02" {
				t.Errorf("%s of %q: %q survives as %q", how, s, e, got)
			}
		}
		// The secret inside longer encoded text, as a page sends it.
		for _, in := range []string{
			"https://h.test/login?user=bob&pw=" + encs["encodeURIComponent"] + "&next=%2F",
			`{"password":"` + encs["json"] + `","remember":true}`,
			`<input name="pw" value="` + encs["inputAttr"] + `">`,
		} {
			if got := red.Redact(in); strings.Contains(got, s) || !strings.Contains(got, "[redacted:pw]") {
				t.Errorf("in %q: redacted to %q", in, got)
			}
		}
	}
}
