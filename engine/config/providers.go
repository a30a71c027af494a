package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/toolwright/toolwright/engine/decl"
	"github.com/toolwright/toolwright/engine/lint"
)

// A BrowserProvider is what the config knows of one browser provider, a
// value of browser.provider. Each provider registers itself at init
// (engine/browser/provider.Register), so browser.provider's values,
// default, docs and schema, and the sections of their settings
// (browser.NAME), are the providers this binary has, and the config names
// none itself.
type BrowserProvider struct {
	Name string
	// Doc says what it does, for browser.provider's docs ("start
	// Chromium here").
	Doc string
	// Default makes it the provider of a config that names none.
	Default bool
	// Settings declares its keys under browser.NAME (nil: none). A key the
	// flat browser section declares too (bin, endpoints) may still be
	// written there, the flat form.
	Settings *decl.Object
	// Check, when set, says what is wrong with a browser section for this
	// provider (its endpoints); the config's load reports it there.
	Check func(Browser) error
}

var browserProviders []BrowserProvider // the default first, then by name

// browserFlat is how many keys BrowserDecl declares itself; the providers'
// sections follow them.
var browserFlat = len(BrowserDecl.Fields)

// RegisterBrowserProvider adds p to browser.provider's declared values,
// and its settings as the section browser.NAME. It panics on an empty or
// repeated name, or a name that is a key of the browser section: providers
// register from init, and each is a programming error.
func RegisterBrowserProvider(p BrowserProvider) {
	if _, flat := BrowserDecl.Field(p.Name); p.Name == "" || flat || slices.ContainsFunc(browserProviders, func(q BrowserProvider) bool { return q.Name == p.Name }) {
		panic(fmt.Sprintf("config: browser provider %q is empty, a key of browser or registered twice", p.Name))
	}
	browserProviders = append(browserProviders, p)
	sortDefaultFirst(browserProviders, func(p BrowserProvider) (bool, string) { return p.Default, p.Name })
	BrowserDecl.Fields = BrowserDecl.Fields[:browserFlat]
	f, _ := BrowserDecl.Field("provider")
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
	for _, q := range browserProviders {
		if q.Settings != nil {
			BrowserDecl.Fields = append(BrowserDecl.Fields, decl.Field{Name: q.Name, Type: decl.Nested, Obj: q.Settings,
				Doc: "the settings of browser.provider " + q.Name + " (" + q.Doc + ")"})
		}
	}
}

// browserProvider is the registered provider name (nil: none).
func browserProvider(name string) *BrowserProvider {
	for i := range browserProviders {
		if browserProviders[i].Name == name {
			return &browserProviders[i]
		}
	}
	return nil
}

// providerSettings reads the chosen provider's section, browser.NAME: a key
// written there wins, else the same key written flat (browser.endpoints,
// the form before sections), else the key's default. A key the flat
// section declares too fills the Browser field of that name; the others go
// to Browser.Settings. A key written both ways with different values is a
// problem at the flat one.
func (c *Config) providerSettings(b *decl.Values, ps *lint.Problems) {
	p := browserProvider(c.Browser.Provider)
	if p == nil || p.Settings == nil {
		return
	}
	sec := b.Sub(p.Name)
	c.Browser.Settings = map[string]any{}
	for _, f := range p.Settings.Fields {
		x, ok := sec.Get(f.Name)
		_, flat := BrowserDecl.Field(f.Name)
		if flat && b.Has(f.Name) {
			fx, _ := b.Get(f.Name)
			if ok && !reflect.DeepEqual(fx, x) {
				ps.Addf(b.KeyPos(f.Name), lint.BadValue, "browser.%s and browser.%s.%s are both written and differ: keep browser.%s.%s", f.Name, p.Name, f.Name, p.Name, f.Name)
			}
			if !ok {
				x, ok = fx, true
			}
		}
		if !ok {
			x = f.Default
		}
		if !flat {
			c.Browser.Settings[f.Name] = x
			continue
		}
		if x != nil {
			setTagged(&c.Browser, f.Name, x)
		}
	}
}

// setTagged stores x in the field of *dst tagged decl:"key".
func setTagged(dst any, key string, x any) {
	rv := reflect.ValueOf(dst).Elem()
	for i := 0; i < rv.NumField(); i++ {
		if rv.Type().Field(i).Tag.Get("decl") == key {
			rv.Field(i).Set(reflect.ValueOf(x).Convert(rv.Field(i).Type()))
			return
		}
	}
}

// checkProvider reports what the chosen provider finds wrong with b.
func checkProvider(b Browser) error {
	if p := browserProvider(b.Provider); p != nil && p.Check != nil {
		return p.Check(b)
	}
	return nil
}
