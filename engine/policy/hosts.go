package policy

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// HostMatcher is policy.allowed_hosts, compiled. The zero value and an empty
// pattern list allow every host. It is safe for concurrent use.
//
// Patterns:
//
//	"example.com"      exactly that host (any port)
//	"*.example.com"    any subdomain (a.example.com, a.b.example.com) but
//	                   NOT example.com itself: list both to allow both
//	"127.0.0.1", "::1" an IP address ("[::1]" too)
//	"localhost:8000"   a ":port" suffix limits a pattern to that port; a URL
//	                   without a port has its scheme's (80 or 443)
//	"*"                any host
//
// Host names compare case-insensitively and without a trailing dot.
type HostMatcher struct {
	pats []hostPattern
}

type hostPattern struct {
	raw      string
	host     string // lower case; without "*." for wildcards
	wildcard bool   // "*.host": subdomains only
	any      bool   // "*"
	port     string // "" for any port
}

// NewHostMatcher compiles patterns; a bad pattern is an error that names it,
// meant for config load.
func NewHostMatcher(patterns []string) (*HostMatcher, error) {
	m := &HostMatcher{}
	for _, p := range patterns {
		hp, err := parseHostPattern(p)
		if err != nil {
			return nil, fmt.Errorf("policy.allowed_hosts: %q: %w", p, err)
		}
		m.pats = append(m.pats, hp)
	}
	return m, nil
}

func parseHostPattern(raw string) (hostPattern, error) {
	p := strings.ToLower(strings.TrimSpace(raw))
	hp := hostPattern{raw: raw}
	switch {
	case p == "":
		return hp, fmt.Errorf("empty host pattern")
	case strings.Contains(p, "://"):
		return hp, fmt.Errorf("expected a host such as \"example.com\", not a URL")
	case strings.ContainsAny(p, "/?#@ \t"):
		return hp, fmt.Errorf("expected a host with an optional :port, found characters a host cannot have")
	}
	host := p
	switch {
	case strings.HasPrefix(p, "["): // [v6] or [v6]:port
		end := strings.Index(p, "]")
		if end < 0 {
			return hp, fmt.Errorf("missing \"]\" after an IPv6 address")
		}
		host = p[1:end]
		rest := p[end+1:]
		if rest != "" {
			if !strings.HasPrefix(rest, ":") {
				return hp, fmt.Errorf("unexpected %q after the IPv6 address", rest)
			}
			hp.port = rest[1:]
		}
		if net.ParseIP(host) == nil {
			return hp, fmt.Errorf("%q is not an IPv6 address", host)
		}
	case strings.Count(p, ":") > 1: // bare IPv6, no port
		if net.ParseIP(p) == nil {
			return hp, fmt.Errorf("not an IP address (write IPv6 with a port as \"[::1]:8080\")")
		}
	case strings.Contains(p, ":"):
		host, hp.port, _ = strings.Cut(p, ":")
	}
	if hp.port != "" {
		n, err := strconv.Atoi(hp.port)
		if err != nil || n < 1 || n > 65535 {
			return hp, fmt.Errorf("port %q is not a number from 1 to 65535", hp.port)
		}
		hp.port = strconv.Itoa(n)
	}
	host = strings.TrimSuffix(host, ".")
	switch {
	case host == "*":
		hp.any = true
		return hp, nil
	case strings.HasPrefix(host, "*."):
		hp.wildcard = true
		host = host[2:]
	}
	if strings.Contains(host, "*") {
		return hp, fmt.Errorf("a wildcard is only allowed as the first label, as in \"*.example.com\"")
	}
	if net.ParseIP(host) == nil {
		if hp.wildcard && !strings.Contains(host, ".") {
			return hp, fmt.Errorf("\"*.%s\" would match a whole top-level domain", host)
		}
		for _, label := range strings.Split(host, ".") {
			if !validLabel(label) {
				return hp, fmt.Errorf("%q is not a valid host name label", label)
			}
		}
	} else if hp.wildcard {
		return hp, fmt.Errorf("a wildcard cannot be used with an IP address")
	} else {
		host = net.ParseIP(host).String() // one spelling per address
	}
	hp.host = host
	return hp, nil
}

func validLabel(l string) bool {
	if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for _, c := range []byte(l) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// AllowsAll reports whether every host is allowed.
func (m *HostMatcher) AllowsAll() bool {
	if m == nil || len(m.pats) == 0 {
		return true
	}
	for _, p := range m.pats {
		if p.any && p.port == "" {
			return true
		}
	}
	return false
}

// ConnectSources are Content-Security-Policy source expressions that let
// a page's connections (fetch, XHR, beacons, event streams, WebSockets)
// reach exactly the allowed hosts ("h:*" for a host with any port,
// "*.example.com:*" for subdomains, "[::1]:8080" for an address and port),
// for the browser to enforce under policy.subresources: allowed_hosts. A
// source without a scheme matches the page's own scheme and its secure
// form (http: also https:) but not WebSockets, so each host comes three
// times: "h:*", "ws://h:*" and "wss://h:*".
func (m *HostMatcher) ConnectSources() []string {
	if m == nil {
		return nil
	}
	var out []string
	for _, p := range m.pats {
		host := p.host
		switch {
		case p.any:
			host = "*"
		case p.wildcard:
			host = "*." + host
		case strings.Contains(host, ":"):
			host = "[" + host + "]"
		}
		port := p.port
		if port == "" {
			port = "*"
		}
		out = append(out, host+":"+port, "ws://"+host+":"+port, "wss://"+host+":"+port)
	}
	return out
}

// AllowedURL reports whether a top-level navigation to raw may go ahead, and
// the host it judged, for the host_not_allowed message: host[:port] as
// written, in lower case (for a blob: URL, its origin's); for other schemes
// the scheme with its colon, as in "file:"; "" when raw is not a URL.
//
// http and https URLs are checked against the patterns. Of the other schemes
// only three are allowed, because they reach no host: about:blank (the page
// every new tab and browser context starts on), data: (the content is inside
// the URL itself) and blob: (an object already in the page's memory; its
// origin, as in blob:https://example.com/…, must itself be allowed, and an
// opaque "null" origin is accepted). Everything else — file:, ftp:,
// javascript:, chrome:, ws:, a missing scheme — is refused.
func (m *HostMatcher) AllowedURL(raw string) (bool, string) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return false, ""
	}
	scheme := strings.ToLower(u.Scheme)
	switch scheme {
	case "http", "https":
	case "about":
		return strings.EqualFold(u.Opaque, "blank"), "about:"
	case "data":
		return true, "data:"
	case "blob":
		inner := u.Opaque
		if inner == "" { // "blob://..." is not a blob URL browsers make
			return false, "blob:"
		}
		if strings.HasPrefix(inner, "null/") || inner == "null" {
			return true, "blob:"
		}
		iu, err := url.Parse(inner)
		if err != nil || (iu.Scheme != "http" && iu.Scheme != "https") {
			return false, "blob:"
		}
		return m.AllowedURL(inner)
	case "":
		return false, ""
	default:
		return false, scheme + ":"
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	shown := strings.ToLower(u.Host)
	if host == "" {
		return false, shown
	}
	if ip := net.ParseIP(host); ip != nil {
		host = ip.String()
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if scheme == "https" {
			port = "443"
		}
	}
	return m.allowHost(host, port), shown
}

// allowHost matches a lower-case host without a trailing dot, and its port.
func (m *HostMatcher) allowHost(host, port string) bool {
	if m == nil || len(m.pats) == 0 {
		return true
	}
	for _, p := range m.pats {
		if p.port != "" && p.port != port {
			continue
		}
		switch {
		case p.any:
			return true
		case p.wildcard:
			if strings.HasSuffix(host, "."+p.host) {
				return true
			}
		case host == p.host:
			return true
		}
	}
	return false
}

// Patterns are the patterns as written.
func (m *HostMatcher) Patterns() []string {
	if m == nil {
		return nil
	}
	out := make([]string, len(m.pats))
	for i, p := range m.pats {
		out[i] = p.raw
	}
	return out
}
