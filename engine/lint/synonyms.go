package lint

import (
	"strings"
	"sync"
	"unicode"
)

// Synonyms maps words authors bring from JSON Schema, spreadsheets,
// programming languages and other automation tools to toolwright's word.
// Suggest offers the toolwright word when it is one of the candidates at
// that place, before it looks for near spellings.
var Synonyms = map[string][]string{
	// parameter fields (JSON Schema, OpenAPI, form builders)
	"maximum": {"max"}, "minimum": {"min"}, "maxlength": {"max_length"}, "minlength": {"min_length"},
	"maxitems": {"max_items"}, "minitems": {"max_items"}, "exclusivemaximum": {"max"}, "exclusiveminimum": {"min"},
	"options": {"enum"}, "choices": {"enum"}, "values": {"enum"}, "allowed": {"enum"}, "oneof": {"enum"},
	"regex": {"pattern"}, "regexp": {"pattern"}, "match": {"pattern"},
	"desc": {"description"}, "help": {"description"}, "summary": {"description"}, "doc": {"description"}, "label": {"description", "title"},
	"default_value": {"default"}, "defaultvalue": {"default"}, "value": {"default"},
	"mandatory": {"required"}, "optional": {"required"},
	"item": {"items"}, "elements": {"items"}, "of": {"items"},
	// types
	"str": {"string"}, "text": {"string"}, "varchar": {"string"}, "char": {"string"},
	"int": {"integer"}, "long": {"integer"}, "whole": {"integer"}, "int32": {"integer"}, "int64": {"integer"},
	"float": {"number"}, "double": {"number"}, "decimal": {"number"}, "numeric": {"number"}, "real": {"number"},
	"bool": {"boolean"}, "flag": {"boolean"}, "checkbox": {"boolean"},
	"list": {"array"}, "[]": {"array"}, "tuple": {"array"}, "selector": {"target", "css"},
	// workflow keys
	"parameters": {"params"}, "inputs": {"params"}, "input": {"params"}, "arguments": {"params", "with"}, "args": {"params", "with"},
	"outputs": {"output"}, "returns": {"output"}, "result": {"output"}, "results": {"output"}, "return": {"output"},
	"actions": {"steps"}, "tasks": {"steps"}, "commands": {"steps"}, "script": {"steps"},
	"tool": {"name", "tool"}, "id": {"name"}, "timeout": {"deadline", "timeout"}, "variables": {"vars"},
	"readonly": {"risk", "read"}, "read_only": {"risk", "read"}, "readwrite": {"write"}, "permission": {"risk"}, "environment": {"env"},
	// step fields (a kind's own synonyms come with its declaration: AddSynonyms)
	"save_as": {"into"}, "as": {"as", "into"}, "store": {"into"},
	"attempt": {"attempts"}, "next_page": {"next"}, "pages": {"max_pages"},
	"retries": {"retry"}, "skip_on_error": {"optional"}, "continue_on_error": {"optional"}, "when": {"if"}, "condition": {"if"},
	// selector-map entries
	"multiple": {"many"}, "all": {"many"}, "plural": {"many"}, "parent": {"within"}, "inside": {"within"}, "scope": {"within"},
	"fallback": {"fallbacks"}, "alternatives": {"fallbacks"}, "alternates": {"fallbacks"}, "backup": {"fallbacks"},
	"aria_role": {"role"}, "accessible_name": {"name"}, "aria_label": {"label"}, "placeholder": {"label"},
	"xpath_selector": {"xpath"}, "css_selector": {"css"}, "query": {"css"}, "writes": {"effect"},
	// config
	"workflow_dir": {"workflows"}, "selector_map": {"selectors"}, "state": {"state_dir"}, "data_dir": {"state_dir"},
	"proxies": {"regions"}, "limit": {"limits"}, "listen": {"addr"}, "address": {"addr"}, "port": {"addr"},
	// test files
	"tests": {"cases"}, "test_cases": {"cases"}, "want": {"expect"}, "expected": {"expect"}, "then": {"expect"},
	"equal": {"equals"}, "eq": {"equals"}, "is": {"equals"}, "includes": {"contains"}, "has": {"contains"},
	"regex_match": {"matches"}, "length": {"len"}, "count": {"len", "count"}, "size": {"len"}, "present": {"exists"},
	// values
	"yes": {"true"}, "no": {"false"}, "on": {"true"}, "off": {"false"},
	"delete": {"destructive"}, "dangerous": {"destructive"},
	"fresh": {"temporary"}, "temp": {"temporary"}, "existing": {"given"}, "shared": {"given"}, "create": {"new"},
}

var synonymsMu sync.RWMutex

// AddSynonyms records words authors bring for word, a toolwright word
// declared elsewhere (a step kind, from its Spec): Suggest offers word
// where it is a candidate, after the table's own words for the same name.
func AddSynonyms(word string, from ...string) {
	synonymsMu.Lock()
	defer synonymsMu.Unlock()
	for _, f := range from {
		Synonyms[f] = append(Synonyms[f], word)
	}
}

// synonym finds the toolwright word for name among candidates: from the
// table, or by writing a camelCase or kebab-case name in snake_case.
func synonym(name string, candidates []string) string {
	has := func(s string) bool {
		for _, c := range candidates {
			if c == s {
				return true
			}
		}
		return false
	}
	if snake := SnakeCase(name); snake != name && has(snake) {
		return snake
	}
	synonymsMu.RLock()
	defer synonymsMu.RUnlock()
	for _, key := range []string{strings.ToLower(name), strings.ToLower(SnakeCase(name))} {
		for _, w := range Synonyms[key] {
			if w != name && has(w) {
				return w
			}
		}
	}
	return ""
}

// SnakeCase writes minLength, min-length and MinLength as min_length.
func SnakeCase(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case r == '-' || r == ' ':
			b.WriteByte('_')
		case unicode.IsUpper(r):
			if i > 0 && rs[i-1] != '_' && rs[i-1] != '-' && !unicode.IsUpper(rs[i-1]) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
