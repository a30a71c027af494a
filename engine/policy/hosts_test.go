package policy

import (
	"strings"
	"testing"
)

func TestHostMatcher(t *testing.T) {
	m, err := NewHostMatcher([]string{"127.0.0.1", "localhost:8000", "Example.com", "*.example.org", "[::1]:9000", "10.0.0.0"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		url  string
		ok   bool
		host string
	}{
		{"http://127.0.0.1:8000/login.html", true, "127.0.0.1:8000"},
		{"https://127.0.0.1/", true, "127.0.0.1"},
		{"http://localhost:8000/", true, "localhost:8000"},
		{"http://localhost:8001/", false, "localhost:8001"},
		{"http://localhost/", false, "localhost"},
		{"https://example.com/x", true, "example.com"},
		{"https://EXAMPLE.com./x", true, "example.com."},
		{"https://www.example.com/", false, "www.example.com"},
		{"https://example.org/", false, "example.org"}, // the apex is not covered by *.
		{"https://a.example.org/", true, "a.example.org"},
		{"https://a.b.example.org/", true, "a.b.example.org"},
		{"https://badexample.org/", false, "badexample.org"},
		{"https://example.org.evil.com/", false, "example.org.evil.com"},
		{"https://example.com@evil.com/", false, "evil.com"},
		{"http://[::1]:9000/", true, "[::1]:9000"},
		{"http://[0:0:0:0:0:0:0:1]:9000/", true, "[0:0:0:0:0:0:0:1]:9000"},
		{"http://[::1]/", false, "[::1]"},
		{"http://10.0.0.0/", true, "10.0.0.0"},
		{"about:blank", true, "about:"},
		{"about:srcdoc", false, "about:"},
		{"data:text/html,<h1>hi</h1>", true, "data:"},
		{"blob:https://a.example.org/8f1c", true, "a.example.org"},
		{"blob:https://evil.com/8f1c", false, "evil.com"},
		{"blob:null/8f1c", true, "blob:"},
		{"file:///etc/passwd", false, "file:"},
		{"javascript:alert(1)", false, "javascript:"},
		{"ftp://example.com/", false, "ftp:"},
		{"chrome://settings", false, "chrome:"},
		{"//example.com/x", false, ""},
		{"http:///x", false, ""},
		{"%zz", false, ""},
	} {
		ok, host := m.AllowedURL(c.url)
		if ok != c.ok || host != c.host {
			t.Errorf("AllowedURL(%q) = %v, %q; want %v, %q", c.url, ok, host, c.ok, c.host)
		}
	}
}

func TestHostMatcherEmptyAllowsAny(t *testing.T) {
	for _, pats := range [][]string{nil, {"*"}} {
		m, err := NewHostMatcher(pats)
		if err != nil {
			t.Fatal(err)
		}
		if !m.AllowsAll() {
			t.Errorf("%v: AllowsAll false", pats)
		}
		if ok, _ := m.AllowedURL("https://anything.test/"); !ok {
			t.Errorf("%v: refused", pats)
		}
		if ok, _ := m.AllowedURL("file:///etc/passwd"); ok {
			t.Errorf("%v: allowed file:", pats)
		}
	}
	var zero *HostMatcher
	if ok, _ := zero.AllowedURL("https://x.test/"); !ok {
		t.Error("nil matcher refused")
	}
}

func TestHostMatcherBadPatterns(t *testing.T) {
	for _, c := range []struct{ pat, want string }{
		{"", "empty"},
		{"https://example.com", "not a URL"},
		{"example.com/path", "characters a host cannot have"},
		{"example.com:0", "port"},
		{"example.com:http", "port"},
		{"ex*ample.com", "first label"},
		{"*.com", "top-level domain"},
		{"*.10.0.0.1", "IP address"},
		{"[::1", "missing"},
		{"[nope]:80", "not an IPv6"},
		{"exa mple.com", "characters"},
		{"-bad.com", "label"},
		{"a..b", "label"},
	} {
		_, err := NewHostMatcher([]string{"ok.com", c.pat})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "policy.allowed_hosts") {
			t.Errorf("pattern %q: %v, want an error with %q", c.pat, err, c.want)
		}
	}
}

func TestConnectSources(t *testing.T) {
	m, err := NewHostMatcher([]string{"127.0.0.1", "*.example.com", "[::1]:8080", "shop.test:443"})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(m.ConnectSources(), " ")
	want := "127.0.0.1:* ws://127.0.0.1:* wss://127.0.0.1:* " +
		"*.example.com:* ws://*.example.com:* wss://*.example.com:* " +
		"[::1]:8080 ws://[::1]:8080 wss://[::1]:8080 " +
		"shop.test:443 ws://shop.test:443 wss://shop.test:443"
	if got != want {
		t.Errorf("ConnectSources:\n got %s\nwant %s", got, want)
	}
}
