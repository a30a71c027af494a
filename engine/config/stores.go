package config

import (
	"fmt"
	"slices"
	"strings"
)

// A StoreBackend is what the config knows of one store backend: the
// store.url values it opens. Each backend registers itself at init
// (engine/store.Register), so store.url's docs and its check are the
// backends this binary has, and the config names none itself.
type StoreBackend struct {
	Name    string
	Schemes []string // the URL schemes it opens; none for the default
	Default bool     // it opens an empty store.url
	URL     string   // what its store.url looks like ("postgres://user:pass@host:5432/db")
	Doc     string   // what it is ("SQLite in state_dir")
}

var storeBackends []StoreBackend // the default first, then by name

// RegisterStoreBackend adds b to the values store.url accepts, and to its
// docs. It panics on an empty or repeated name.
func RegisterStoreBackend(b StoreBackend) {
	if b.Name == "" || slices.ContainsFunc(storeBackends, func(o StoreBackend) bool { return o.Name == b.Name }) {
		panic(fmt.Sprintf("config: store backend %q is empty or registered twice", b.Name))
	}
	storeBackends = append(storeBackends, b)
	sortDefaultFirst(storeBackends, func(b StoreBackend) (bool, string) { return b.Default, b.Name })
	var docs []string
	for _, o := range storeBackends {
		docs = append(docs, orEmpty(o.URL)+": "+o.Doc)
	}
	f, _ := StoreDecl.Field("url")
	f.Doc = strings.Join(docs, "; ")
}

// orEmpty is s, or "empty" when s is empty.
func orEmpty(s string) string {
	if s == "" {
		return "empty"
	}
	return s
}

// storeURL is store.url's Conv: empty, or a URL of a registered backend's
// scheme. It never repeats the value, which may hold a password.
func storeURL(where string, x any) (any, error) {
	u := x.(string)
	scheme, _, hasScheme := strings.Cut(u, "://")
	var want []string
	for _, b := range storeBackends {
		if u == "" && b.Default || hasScheme && slices.Contains(b.Schemes, scheme) {
			return u, nil
		}
		if b.Default {
			want = append(want, "empty ("+b.Doc+")")
		} else {
			want = append(want, b.URL)
		}
	}
	if u == "" {
		return u, nil // no backend registered: nothing to check the default against
	}
	if len(want) == 0 {
		return nil, fmt.Errorf("%s: this program knows no store backends", where)
	}
	return nil, fmt.Errorf("%s must be %s", where, strings.Join(want, " or "))
}

// sortDefaultFirst sorts a registry's list: the default first, then by
// name (key gives both).
func sortDefaultFirst[T any](list []T, key func(T) (bool, string)) {
	slices.SortStableFunc(list, func(x, y T) int {
		dx, nx := key(x)
		dy, ny := key(y)
		switch {
		case dx && !dy:
			return -1
		case dy && !dx:
			return 1
		}
		return strings.Compare(nx, ny)
	})
}
