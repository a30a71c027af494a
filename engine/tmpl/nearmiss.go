package tmpl

import (
	"fmt"
	"regexp"
	"strings"
)

// Near misses of the ${{ }} delimiters would otherwise be typed into the
// page literally. Each pattern says the right form.
var nearMisses = []struct {
	re  *regexp.Regexp
	fix func(m string) string
}{
	{regexp.MustCompile(`\$[ \t]+\{\{`), func(string) string { return "write ${{ with no space between $ and {{" }},
	{regexp.MustCompile(`\$\{\{\{`), func(string) string { return "a template opens with two braces: ${{ ... }}, not three" }},
	{regexp.MustCompile(`\$\{[^{][^}]*\}`), func(m string) string {
		return fmt.Sprintf("%q uses one brace: templates are ${{ %s }}", m, strings.TrimSpace(m[2:len(m)-1]))
	}},
	{regexp.MustCompile(`\$\(\([^)]*\)\)|\$\([^)]*\)`), func(m string) string {
		return fmt.Sprintf("%q is shell syntax: templates are ${{ %s }}", m, strings.Trim(strings.TrimSpace(m[1:]), "() "))
	}},
	{regexp.MustCompile(`(^|[^$])\{\{[^{}]*\}\}`), func(m string) string {
		i := strings.Index(m, "{{")
		return fmt.Sprintf("%q looks like a template without its $: write ${{ %s }}", m[i:], strings.TrimSpace(m[i+2:len(m)-2]))
	}},
	{regexp.MustCompile(`#\{[^}]*\}|%\{[^}]*\}`), func(m string) string {
		return fmt.Sprintf("%q is not a toolwright template: write ${{ %s }}", m, strings.TrimSpace(m[2:len(m)-1]))
	}},
}

// nearMiss finds the first near miss in text, as a rune offset and a fix.
func nearMiss(text string) (int, string, bool) {
	best, fix := -1, ""
	for _, nm := range nearMisses {
		loc := nm.re.FindStringIndex(text)
		if loc == nil {
			continue
		}
		m := text[loc[0]:loc[1]]
		start := loc[0]
		if !strings.HasPrefix(m, "$") && !strings.HasPrefix(m, "{") && !strings.HasPrefix(m, "#") && !strings.HasPrefix(m, "%") {
			start++ // the pattern matched the character before {{
			m = m[1:]
		}
		if best < 0 || start < best {
			best, fix = start, nm.fix(m)
		}
	}
	if best < 0 {
		return 0, "", false
	}
	return len([]rune(text[:best])), fix, true
}

// Operators and words from other languages that expr-lang does not know,
// with the form it does.
var foreignOps = []struct {
	re   *regexp.Regexp
	want string
}{
	{regexp.MustCompile(`===`), "=="},
	{regexp.MustCompile(`!==`), "!="},
	{regexp.MustCompile(`<>`), "!="},
	{regexp.MustCompile(`(^|[^=!<>])=([^=~]|$)`), "=="},
}

var wordRE = regexp.MustCompile(`[A-Za-z_]+`)

// foreignOp explains a parse error caused by an operator from elsewhere.
func foreignOp(code string) (int, string, bool) {
	code = blankStrings(code)
	for _, loc := range wordRE.FindAllStringIndex(code, -1) {
		w := code[loc[0]:loc[1]]
		if want, ok := foreignWords[w]; ok && (want == "and" || want == "or" || want == "not") {
			return len([]rune(code[:loc[0]])), fmt.Sprintf("%s is not an operator here: write %s", w, want), true
		}
	}
	for _, f := range foreignOps {
		if loc := f.re.FindStringIndex(code); loc != nil {
			start := loc[0]
			m := code[loc[0]:loc[1]]
			if f.want == "==" && !strings.HasPrefix(m, "=") {
				start++
			}
			op := strings.TrimFunc(m, func(r rune) bool { return r != '=' && r != '!' && r != '<' && r != '>' })
			return len([]rune(code[:start])), fmt.Sprintf("%s is not an operator here: write %s", op, f.want), true
		}
	}
	return 0, "", false
}

// foreignWords are names from other languages for expr-lang's words.
var foreignWords = map[string]string{
	"null": "nil", "NULL": "nil", "Null": "nil", "undefined": "nil", "None": "nil", "nothing": "nil",
	"True": "true", "TRUE": "true", "False": "false", "FALSE": "false",
	"AND": "and", "OR": "or", "NOT": "not", "And": "and", "Or": "or", "Not": "not",
	"this": "item", "self": "item", "it": "item", "param": "params", "parameters": "params",
	"variables": "vars", "var": "vars", "secret": "secrets", "cfg": "config", "window": "page", "document": "page",
}

// blankStrings replaces the inside of string literals with spaces, so
// words and operators inside them are not taken for code.
func blankStrings(code string) string {
	b := []byte(code)
	var q byte
	for i := 0; i < len(b); i++ {
		switch {
		case q != 0 && b[i] == '\\':
			b[i] = ' '
			if i+1 < len(b) {
				i++
				b[i] = ' '
			}
		case q != 0 && b[i] == q:
			q = 0
		case q != 0:
			if b[i] < 0x80 {
				b[i] = ' '
			}
		case b[i] == '"' || b[i] == '\'' || b[i] == '`':
			q = b[i]
		}
	}
	return string(b)
}
