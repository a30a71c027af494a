package selector

import (
	"regexp"
	"testing"
)

// TestMatchURL: * is any run of characters (slashes too), everything else
// literal (regexp and path.Match metacharacters included); a glob without
// a scheme also matches the path with its query and fragment.
func TestMatchURL(t *testing.T) {
	const u = "http://127.0.0.1:8080/shop/catalog.html?q=bolt#top"
	for _, tc := range []struct {
		glob string
		want bool
	}{
		{u, true},
		{"http://127.0.0.1:8080/*", true},
		{"*/catalog.html*", true},
		{"/shop/catalog.html?q=bolt#top", true},
		{"/shop/*", true},
		{"*bolt*", true},
		{"*", true},
		{"/catalog.html", false},                           // the path must match whole
		{"https://127.0.0.1:8080/*", false},                // the scheme is literal
		{"http://127.0.0.1:8080/shop/catalog.html", false}, // a scheme: the whole URL
		{"/shop/catalog.html?q=bol?#top", false},
		{"http://127.0.0.1:8080/shop/catalog.html?q=bol?#top", false}, // (assert's path.Match took it)           // ? is literal, not one character
		{"/shop/catalog.htm[l]?q=bolt#top", false},                    // [ ] are literal
		{"/shop/catalog.html.q=bolt#top", false},                      // . is literal
	} {
		if got := MatchURL(tc.glob, u); got != tc.want {
			t.Errorf("MatchURL(%q) = %v, want %v", tc.glob, got, tc.want)
		}
	}
	if !MatchURL("/", "http://127.0.0.1:8080") {
		t.Error(`"/" does not match a bare origin`)
	}
	// The page runs the same expression: it must be valid JavaScript too,
	// so nothing beyond what both engines read the same way.
	if re := globRE("a.b*c?d[e]"); re != `^a\.b[\s\S]*c\?d\[e\]$` || !regexp.MustCompile(re).MatchString("a.b/x/c?d[e]") {
		t.Errorf("globRE: %s", re)
	}
}

func TestURLPath(t *testing.T) {
	for in, want := range map[string]string{
		"http://h:1/a/b?x=1#f": "/a/b?x=1#f",
		"http://h:1":           "/",
		"file:///tmp/a.html":   "/tmp/a.html",
		"/already/a/path":      "/already/a/path",
	} {
		if got := URLPath(in); got != want {
			t.Errorf("URLPath(%q) = %q, want %q", in, got, want)
		}
	}
}
