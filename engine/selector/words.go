package selector

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/toolwright/toolwright/engine/decl"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/yamlx"
	"gopkg.in/yaml.v3"
)

// Authors bring words for a locator from other tools (Playwright's
// getByTestId, Selenium's By.id, Cypress's data-cy). foreignLocator says
// the toolwright locator that finds the same element, written with the
// author's value: `id: logout` → css: "#logout".
func init() {
	EntryDecl.Hint = foreignLocator
	LocatorDecl.Hint = foreignLocator
}

var cssIdent = regexp.MustCompile(`^-?[A-Za-z_][A-Za-z0-9_-]*$`)

// attrWords map a key to the attribute it names (and the element, if any).
var attrWords = map[string]string{
	"placeholder": "[placeholder=%s]", "title": "[title=%s]", "alt": "img[alt=%s]", "href": "a[href=%s]",
	"testid": "[data-testid=%s]", "test_id": "[data-testid=%s]", "data_testid": "[data-testid=%s]",
	"aria_labelledby": "[aria-labelledby=%s]", "for": "label[for=%s]", "type": "[type=%s]",
}

func foreignLocator(key string, value *yaml.Node) (string, string) {
	v := yamlx.Resolve(value)
	if v == nil || v.Kind != yaml.ScalarNode || v.Tag == "!!null" || strings.TrimSpace(v.Value) == "" {
		return "", ""
	}
	val := strings.TrimSpace(v.Value)
	k := lint.SnakeCase(key)
	k = strings.ToLower(k)
	write := func(strategy, sel, why string) (string, string) {
		return fmt.Sprintf(" (%s: write %s: %s)", why, strategy, yamlQuote(sel)), strategy
	}
	why := "toolwright finds elements by " + decl.OrList(Strategies)
	switch {
	case k == "id" || k == "element_id" || k == "by_id":
		if cssIdent.MatchString(val) {
			return write(CSS, "#"+val, why)
		}
		return write(CSS, "[id="+strconv.Quote(val)+"]", why)
	case k == "class" || k == "class_name" || k == "classname" || k == "classes":
		parts := strings.Fields(strings.ReplaceAll(val, ".", " "))
		for _, p := range parts {
			if !cssIdent.MatchString(p) {
				return write(CSS, "[class~="+strconv.Quote(val)+"]", why)
			}
		}
		return write(CSS, "."+strings.Join(parts, "."), why)
	case strings.Contains(k, "xpath") || k == "x_path":
		return write(XPath, val, "the strategy is spelt xpath")
	case k == "selector" || k == "locator" || k == "css_selector" || k == "query" || k == "query_selector" || k == "find" || k == "by" || k == "element" || k == "cssselector":
		if strings.HasPrefix(val, "/") || strings.HasPrefix(val, "(") {
			return write(XPath, val, "an XPath expression is written xpath")
		}
		return write(CSS, val, "a CSS selector is written css")
	case strings.HasPrefix(k, "data_") || strings.HasPrefix(key, "data-"):
		attr := strings.ReplaceAll(strings.ToLower(key), "_", "-")
		return write(CSS, "["+attr+"="+strconv.Quote(val)+"]", why)
	}
	if f, ok := attrWords[k]; ok {
		return write(CSS, fmt.Sprintf(f, strconv.Quote(val)), why)
	}
	return "", ""
}

// yamlQuote writes s as a YAML value that needs no further quoting.
func yamlQuote(s string) string {
	if !strings.Contains(s, "'") {
		return "'" + s + "'"
	}
	return strconv.Quote(s)
}
