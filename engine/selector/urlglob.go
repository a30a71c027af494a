package selector

import (
	"regexp"
	"strings"
)

// URL globs are the one pattern language of wait's and assert's url
// conditions: * matches any run of characters, slashes included, and
// everything else is literal. A glob with a scheme ("://") is matched
// against the whole URL; one without it against the whole URL or against
// the URL's path with its query and fragment, so "*/catalog.html*" and
// "/catalog.html" both read naturally. MatchURL matches in Go; wait sends
// globRE and globOnPath to the page, which applies the same rule to
// location.

// MatchURL reports whether url matches glob.
func MatchURL(glob, url string) bool {
	re := regexp.MustCompile(globRE(glob)) // quoted parts: always valid
	return re.MatchString(url) || (globOnPath(glob) && re.MatchString(URLPath(url)))
}

// globRE turns a URL glob into a regular expression source matching the
// whole string, valid in Go and in JavaScript.
func globRE(glob string) string {
	parts := strings.Split(glob, "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return "^" + strings.Join(parts, "[\\s\\S]*") + "$"
}

// globOnPath reports whether glob is also matched against the URL's path.
func globOnPath(glob string) bool { return !strings.Contains(glob, "://") }

// URLPath is url's path with its query and fragment ("/" for a bare
// origin), as messages show a page; a string without "://" is returned as
// it is.
func URLPath(url string) string {
	if i := strings.Index(url, "://"); i >= 0 {
		rest := url[i+3:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			return rest[j:]
		}
		return "/"
	}
	return url
}
