package yamlx

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/toolwright/toolwright/engine/lint"
)

// A YAML parser error names what the parser expected, often at the line
// where the enclosing block began. explain finds the cause in the text and
// says it in an author's words with the fix, at the line and column where
// the author must change something.

var lineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntaxProblem turns a parser error into one problem.
func syntaxProblem(file string, data []byte, err error) (lint.Problem, int) {
	msg := err.Error()
	line := 1
	raw := strings.TrimPrefix(msg, "yaml: ")
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		raw = m[2]
	}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	if l, c, text := explain(lines, line, raw); text != "" {
		return lint.Problem{Pos: lint.Pos{File: file, Line: l, Col: c}, Kind: lint.Syntax, Message: text}, line
	}
	return lint.Problem{Pos: lint.Pos{File: file, Line: line, Col: 1}, Kind: lint.Syntax, Message: "YAML syntax: " + raw}, line
}

// explain returns the 1-based line and column of the cause and the message,
// or "" when it cannot tell.
func explain(lines []string, line int, raw string) (int, int, string) {
	for _, check := range checks {
		if l, c, text := check(lines, line, raw); text != "" {
			return l, c, text
		}
	}
	return 0, 0, ""
}

var checks = []func(lines []string, line int, raw string) (int, int, string){
	tabIndent, flowTemplate, unclosedQuote, textAfterQuote, aliasLike, reservedStart,
	colonInValue, listOnKeyLine, colonInFlow, unclosedFlow, extraClose, listIndent, deeperLine, missingColon,
}

func indentOf(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

// content reports whether a line holds YAML (not blank, not a comment).
func content(s string) bool {
	t := strings.TrimSpace(s)
	return t != "" && !strings.HasPrefix(t, "#")
}

// value splits `key: value` (after an optional "- "), giving the value
// and its 0-based column; ok is false for lines without a key.
func value(s string) (string, int, bool) {
	if !content(s) {
		return "", 0, false
	}
	i := indentOf(s)
	rest := s[i:]
	for strings.HasPrefix(rest, "- ") {
		rest = rest[2:]
		i += 2
	}
	if strings.HasPrefix(rest, "\"") || strings.HasPrefix(rest, "'") {
		return "", 0, false
	}
	k := strings.Index(rest, ": ")
	if k < 0 {
		return "", 0, false
	}
	v := rest[k+2:]
	col := i + k + 2
	trimmed := strings.TrimLeft(v, " ")
	return strings.TrimRight(stripComment(trimmed), " "), col + len(v) - len(trimmed), true
}

func stripComment(v string) string {
	if strings.HasPrefix(v, "\"") || strings.HasPrefix(v, "'") {
		return v
	}
	from := 0
	if t := strings.Index(v, "${{"); t >= 0 {
		// an author's template is one value even where YAML would see a
		// comment in it (map(rows, {{t: #.title}})): suggest quoting it whole
		if e := strings.LastIndex(v, "}}"); e > t {
			from = e
		}
	}
	if i := strings.Index(v[from:], " #"); i >= 0 {
		return v[:from+i]
	}
	return v
}

func tabIndent(lines []string, _ int, raw string) (int, int, string) {
	if !strings.Contains(raw, "tab") && !strings.Contains(raw, "cannot start any token") && !strings.Contains(raw, "indentation") {
		return 0, 0, ""
	}
	for i, l := range lines {
		lead := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if j := strings.IndexByte(lead, '\t'); j >= 0 {
			return i + 1, j + 1, "a tab in the indentation: YAML indents with spaces only; replace the tab with spaces (set your editor to insert spaces)"
		}
	}
	return 0, 0, ""
}

func flowTemplate(lines []string, line int, raw string) (int, int, string) {
	if !strings.Contains(raw, "did not find expected ',' or '}'") && !strings.Contains(raw, "did not find expected ',' or ']'") && !strings.Contains(raw, "mapping values") {
		return 0, 0, ""
	}
	for i, l := range lines {
		if j := bareFlowTemplate(l); j >= 0 {
			return i + 1, j + 1, `inside a {...} or [...] flow collection a bare ${{ reads as a map: quote the template, as in value: "${{ params.query }}"`
		}
	}
	return 0, 0, ""
}

// bareFlowTemplate returns the 0-based column of a ${{ on line l that sits
// inside a {...} or [...] collection and outside any quoted scalar, or -1.
// A quote opens a scalar only where one may start (after {, [, a comma, a
// colon or a space that follows one), so "text ${{ x }}" inside a quoted
// value and an apostrophe inside plain text are both told apart.
func bareFlowTemplate(l string) int {
	depth := 0
	var quote byte
	start := true // a scalar may start here
	for j := 0; j < len(l); j++ {
		c := l[j]
		switch {
		case quote != 0:
			if c == quote {
				if quote == '\'' && j+1 < len(l) && l[j+1] == '\'' {
					j++ // '' inside a single-quoted scalar
					continue
				}
				quote = 0
			} else if c == '\\' && quote == '"' {
				j++
			}
			continue
		case strings.HasPrefix(l[j:], "${{"):
			if depth > 0 {
				return j
			}
			end := strings.Index(l[j:], "}}")
			if end < 0 {
				return -1
			}
			j += end + 1
			start = false
			continue
		case c == '#' && (j == 0 || l[j-1] == ' '):
			return -1
		case (c == '"' || c == '\'') && start:
			quote = c
			continue
		case c == '{' || c == '[':
			depth++
			start = true
			continue
		case c == '}' || c == ']':
			depth--
		case c == ',' || c == ':':
			start = true
			continue
		case c == ' ' || c == '-':
			continue // keeps start as it was
		}
		start = false
	}
	return -1
}

// unclosedQuote finds a quote that starts a value and is never closed on
// its line (YAML allows multi-line quoted values, authors rarely mean one).
func unclosedQuote(lines []string, _ int, raw string) (int, int, string) {
	if !strings.Contains(raw, "end of stream") && !strings.Contains(raw, "quoted scalar") && !strings.Contains(raw, "did not find expected key") && !strings.Contains(raw, "could not find expected ':'") {
		return 0, 0, ""
	}
	for i, l := range lines {
		if !content(l) {
			continue
		}
		prev := byte(' ')
		atStart := true // a scalar may start here
		for j := 0; j < len(l); j++ {
			c := l[j]
			if (c == '"' || c == '\'') && atStart {
				end := closeIndex(l[j+1:], c)
				if end < 0 {
					return i + 1, j + 1, fmt.Sprintf("the %s opened here is never closed: end the value with %c (to put a %c inside, quote the value with the other kind of quote)", quoteName(c), c, c)
				}
				j += end + 1
				prev, atStart = c, false
				continue
			}
			if c == '#' && prev == ' ' {
				break // a comment
			}
			switch {
			case c == ' ':
				atStart = atStart || prev == ':' || prev == '-' || prev == ','
			case c == '[' || c == '{':
				atStart = true
			default:
				atStart = false
			}
			if c == ' ' && !(prev == ':' || prev == '-' || prev == ',' || prev == '[' || prev == '{' || prev == ' ') {
				atStart = false
			}
			prev = c
		}
	}
	return 0, 0, ""
}

func quoteName(q byte) string {
	if q == '"' {
		return `double quote "`
	}
	return "single quote '"
}

func textAfterQuote(lines []string, _ int, raw string) (int, int, string) {
	if !strings.Contains(raw, "did not find expected key") && !strings.Contains(raw, "did not find expected ',' or") {
		return 0, 0, ""
	}
	for i, l := range lines {
		v, col, ok := value(l)
		if !ok || v == "" || (v[0] != '"' && v[0] != '\'') {
			continue
		}
		end := closeIndex(v[1:], v[0])
		if end < 0 {
			continue
		}
		rest := v[end+2:]
		after := strings.TrimSpace(rest)
		if after != "" && !strings.HasPrefix(after, "#") && !strings.HasPrefix(after, ",") && !strings.HasPrefix(after, "}") && !strings.HasPrefix(after, "]") {
			return i + 1, col + end + 3 + len(rest) - len(strings.TrimLeft(rest, " ")), fmt.Sprintf("text after the closing quote: quote the whole value, as in %s", suggestQuoted(v))
		}
	}
	return 0, 0, ""
}

func closeIndex(rest string, q byte) int {
	for i := 0; i < len(rest); i++ {
		switch {
		case q == '"' && rest[i] == '\\':
			i++
		case q == '\'' && rest[i] == '\'' && i+1 < len(rest) && rest[i+1] == '\'':
			i++
		case rest[i] == q:
			return i
		}
	}
	return -1
}

func suggestQuoted(v string) string {
	if !strings.Contains(v, "'") {
		return "'" + v + "'"
	}
	return strconv.Quote(v)
}

func aliasLike(lines []string, _ int, raw string) (int, int, string) {
	if !strings.Contains(raw, "alphabetic or numeric") && !strings.Contains(raw, "unknown anchor") && !strings.Contains(raw, "anchor") {
		return 0, 0, ""
	}
	for i, l := range lines {
		v, col, ok := value(l)
		if ok && v != "" && (v[0] == '*' || v[0] == '&') {
			return i + 1, col + 1, fmt.Sprintf("a value starting with %c is a YAML %s: quote it, as in %q", v[0], map[byte]string{'*': "alias", '&': "anchor"}[v[0]], v)
		}
	}
	return 0, 0, ""
}

func reservedStart(lines []string, _ int, raw string) (int, int, string) {
	if !strings.Contains(raw, "cannot start any token") {
		return 0, 0, ""
	}
	for i, l := range lines {
		v, col, ok := value(l)
		if ok && v != "" && strings.ContainsRune("@`%", rune(v[0])) {
			return i + 1, col + 1, fmt.Sprintf("a value cannot start with %c in YAML: quote it, as in %s", v[0], suggestQuoted(v))
		}
	}
	return 0, 0, ""
}

func colonInValue(lines []string, _ int, raw string) (int, int, string) {
	if !strings.Contains(raw, "mapping values are not allowed") {
		return 0, 0, ""
	}
	for i, l := range lines {
		v, col, ok := value(l)
		if !ok || v == "" || strings.ContainsRune("\"'{[|>", rune(v[0])) {
			continue
		}
		if j := strings.Index(v, ": "); j >= 0 || strings.HasSuffix(v, ":") {
			if j < 0 {
				j = len(v) - 1
			}
			return i + 1, col + j + 1, fmt.Sprintf("the value contains \": \", which YAML reads as another key: quote the value, as in %s", suggestQuoted(v))
		}
	}
	return 0, 0, ""
}

func listOnKeyLine(lines []string, _ int, raw string) (int, int, string) {
	if !strings.Contains(raw, "block sequence entries are not allowed") {
		return 0, 0, ""
	}
	for i, l := range lines {
		v, col, ok := value(l)
		if ok && strings.HasPrefix(v, "- ") {
			item := strings.TrimPrefix(v, "- ")
			if strings.Contains(item, ": ") {
				return i + 1, col + 1, fmt.Sprintf("a list cannot start on its key's line: put %q on the next line, indented two spaces", v)
			}
			return i + 1, col + 1, fmt.Sprintf("a list cannot start on its key's line: put %q on the next line, indented, or write [%s]", v, item)
		}
	}
	return 0, 0, ""
}

// colonInFlow finds a plain value inside a {...} map that holds ": ",
// which YAML reads as a second key.
func colonInFlow(lines []string, _ int, raw string) (int, int, string) {
	if !strings.Contains(raw, "did not find expected ',' or '}'") && !strings.Contains(raw, "mapping values are not allowed") {
		return 0, 0, ""
	}
	for i, l := range lines {
		if !content(l) {
			continue
		}
		depth, entry := 0, -1
		var q byte
		for j := 0; j < len(l); j++ {
			c := l[j]
			switch {
			case q != 0:
				if c == q {
					q = 0
				}
			case c == '"' || c == '\'':
				if j > 0 && (l[j-1] == ' ' || l[j-1] == '{' || l[j-1] == ',') {
					q = c
				}
			case c == '{':
				depth++
				entry = j + 1
			case c == '}':
				depth--
			case c == ',' && depth > 0:
				entry = j + 1
			case c == '#' && j > 0 && l[j-1] == ' ':
				j = len(l)
			case c == ':' && depth > 0 && j+1 < len(l) && l[j+1] == ' ' && entry >= 0:
				// the second ": " of one entry: its value holds a colon
				if k := strings.Index(l[entry:j], ": "); k >= 0 {
					v := strings.TrimSpace(l[entry+k+2:])
					if end := strings.IndexAny(v, ",}"); end >= 0 {
						v = v[:end]
					}
					if v != "" && v[0] != '"' && v[0] != '\'' && v[0] != '{' && v[0] != '[' {
						key := strings.TrimSpace(l[entry : entry+k])
						return i + 1, j + 1, fmt.Sprintf("the value of %s contains \": \", which YAML reads as another key inside {...}: quote the value, as in %s: %s", key, key, suggestQuoted(v))
					}
				}
			}
		}
	}
	return 0, 0, ""
}

// unclosedFlow finds a [ or { that is never closed.
func unclosedFlow(lines []string, _ int, raw string) (int, int, string) {
	var want byte
	switch {
	case strings.Contains(raw, "did not find expected ',' or '}'"):
		want = '{'
	case strings.Contains(raw, "did not find expected ',' or ']'"):
		want = '['
	default:
		return 0, 0, ""
	}
	for i, l := range lines {
		v, col, ok := value(l)
		if !ok {
			t := strings.TrimLeft(l, " -")
			v, col = t, len(l)-len(t)
		}
		if v == "" || v[0] != want {
			continue
		}
		if depth := flowDepth(v); depth > 0 {
			closer := map[byte]string{'{': "}", '[': "]"}[want]
			return i + 1, col + 1, fmt.Sprintf("the %c opened here is not closed on its line: add %s at the end (or check for a missing comma between entries)", want, closer)
		}
	}
	return 0, 0, ""
}

func flowDepth(v string) int {
	depth := 0
	var q byte
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			}
		case c == '"' || c == '\'':
			q = c
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		}
	}
	return depth
}

func extraClose(lines []string, _ int, raw string) (int, int, string) {
	if !strings.Contains(raw, "did not find expected key") {
		return 0, 0, ""
	}
	for i, l := range lines {
		v, col, ok := value(l)
		if !ok || v == "" || (v[0] != '{' && v[0] != '[') {
			continue
		}
		if flowDepth(v) < 0 {
			return i + 1, col + len(v), fmt.Sprintf("one %c too many at the end of the line: remove it", v[len(v)-1])
		}
	}
	return 0, 0, ""
}

// listIndent finds a list item indented unlike the items above it, or a
// list item where the map around it expects a key.
func listIndent(lines []string, _ int, raw string) (int, int, string) {
	if !strings.Contains(raw, "'-' indicator") && !strings.Contains(raw, "did not find expected key") {
		return 0, 0, ""
	}
	prev := -1 // index of the previous content line
	for i, l := range lines {
		if !content(l) {
			continue
		}
		t := strings.TrimLeft(l, " ")
		if prev >= 0 {
			pl := lines[prev]
			pt := strings.TrimLeft(pl, " ")
			pi, li := indentOf(pl), indentOf(l)
			switch {
			case strings.HasPrefix(t, "- ") && strings.HasPrefix(pt, "- ") && li > pi && !strings.HasSuffix(strings.TrimSpace(pl), ":"):
				return i + 1, li + 1, fmt.Sprintf("this list item is indented %d spaces, the item above %d: line them up (or end the line above with a key and a colon to start a nested list)", li, pi)
			case strings.HasPrefix(t, "- ") && !strings.HasPrefix(pt, "- ") && li == pi && li == 0 && !strings.HasSuffix(strings.TrimSpace(pl), ":"):
				return i + 1, li + 1, "a list item where a key was expected: indent the list under its key (for example steps:)"
			case !strings.HasPrefix(t, "- ") && strings.HasPrefix(pt, "- ") && li == pi:
				return i + 1, li + 1, fmt.Sprintf("this key is at the indentation of the list item above: indent it %d more spaces to belong to that item, or give it a \"- \" to start a new item", 2)
			case strings.HasPrefix(t, "- ") && li > pi && strings.HasSuffix(strings.TrimSpace(pl), ":") && strings.HasPrefix(pt, "- ") && li < pi+2:
				// a nested list started: fine
			}
		}
		prev = i
	}
	return 0, 0, ""
}

// deeperLine finds a line indented deeper than the line above when that
// line's key already has a value.
func deeperLine(lines []string, _ int, raw string) (int, int, string) {
	if !strings.Contains(raw, "mapping values are not allowed") && !strings.Contains(raw, "did not find expected key") {
		return 0, 0, ""
	}
	prev := -1
	for i, l := range lines {
		if !content(l) {
			continue
		}
		if prev >= 0 {
			pv, _, pok := value(lines[prev])
			if pok && pv != "" && !strings.ContainsRune("|>", rune(pv[0])) && indentOf(l) > indentOf(lines[prev]) && !strings.HasPrefix(strings.TrimLeft(lines[prev], " "), "- ") {
				return i + 1, indentOf(l) + 1, fmt.Sprintf("this line is indented deeper than the line above, whose key already has a value: line it up with %q (or move that value onto its own lines)", strings.TrimSpace(strings.SplitN(lines[prev], ":", 2)[0]))
			}
		}
		prev = i
	}
	return 0, 0, ""
}

func missingColon(lines []string, line int, raw string) (int, int, string) {
	if !strings.Contains(raw, "could not find expected ':'") && !strings.Contains(raw, "mapping values are not allowed") {
		return 0, 0, ""
	}
	for i, l := range lines {
		if !content(l) {
			continue
		}
		t := strings.TrimLeft(l, " ")
		t = strings.TrimPrefix(t, "- ")
		if strings.Contains(t, ":") || strings.HasPrefix(t, "\"") || strings.HasPrefix(t, "'") || strings.HasPrefix(t, "-") {
			continue
		}
		// a plain line in a map: part of a value above (a block scalar or
		// a flow) or a key missing its colon
		if i > 0 && inBlockOrFlow(lines, i) {
			continue
		}
		word := strings.Fields(t)[0]
		return i + 1, indentOf(l) + 1, fmt.Sprintf("this line is not key: value: put a colon after the key, as in %s: ..., or indent it as part of the value above", word)
	}
	return 0, 0, ""
}

// inBlockOrFlow reports whether line i continues a value above: a block
// scalar (| or >) whose indentation it keeps, or a plain multi-line value.
func inBlockOrFlow(lines []string, i int) bool {
	for j := i - 1; j >= 0; j-- {
		if !content(lines[j]) {
			continue
		}
		v, _, ok := value(lines[j])
		if ok && v != "" && strings.ContainsRune("|>", rune(v[0])) {
			return indentOf(lines[i]) > indentOf(lines[j])
		}
		if indentOf(lines[j]) < indentOf(lines[i]) {
			return ok && v != "" // a plain value continued on the next line
		}
		if !ok {
			continue
		}
		return false
	}
	return false
}
