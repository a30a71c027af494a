package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolwright/toolwright/engine/decl"
)

// A BrowserProvider is what the config knows of one browser provider, a
// value of browser.provider. engine/browser registers each of its
// providers at init (browser.RegisterProvider), so browser.provider's
// values, default, docs and schema are the providers this binary has,
// and the config names none itself.
type BrowserProvider struct {
	Name string
	// Doc says what it does, for browser.provider's docs ("start
	// Chromium here").
	Doc string
	// Default makes it the provider of a config that names none.
	Default bool
	// Check, when set, says what is wrong with a browser section for this
	// provider (its endpoints); the config's load reports it there.
	Check func(Browser) error
}

var browserProviders []BrowserProvider // the default first, then by name

// RegisterBrowserProvider adds p to browser.provider's declared values.
// It panics on an empty or repeated name: providers register from init,
// and either is a programming error.
func RegisterBrowserProvider(p BrowserProvider) {
	if p.Name == "" || slices.ContainsFunc(browserProviders, func(q BrowserProvider) bool { return q.Name == p.Name }) {
		panic(fmt.Sprintf("config: browser provider %q is empty or registered twice", p.Name))
	}
	browserProviders = append(browserProviders, p)
	slices.SortStableFunc(browserProviders, func(a, b BrowserProvider) int {
		if a.Default != b.Default {
			if a.Default {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	f := providerField()
	f.Enum, f.Doc = nil, ""
	var docs []string
	for _, q := range browserProviders {
		f.Enum = append(f.Enum, q.Name)
		docs = append(docs, q.Name+": "+q.Doc)
		if q.Default {
			f.Default = q.Name
		}
	}
	f.Doc = strings.Join(docs, "; ")
}

// providerField is browser.provider's declaration.
func providerField() *decl.Field {
	for i := range BrowserDecl.Fields {
		if BrowserDecl.Fields[i].Name == "provider" {
			return &BrowserDecl.Fields[i]
		}
	}
	panic("config: BrowserDecl declares no provider")
}

// checkProvider reports what the chosen provider finds wrong with b.
func checkProvider(b Browser) error {
	for _, p := range browserProviders {
		if p.Name == b.Provider && p.Check != nil {
			return p.Check(b)
		}
	}
	return nil
}
