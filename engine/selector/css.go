package selector

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// CheckCSS reports whether a selector list parses as Chromium's
// querySelectorAll parses it (Selectors Level 4 as Chromium implements
// it), and if not, what is wrong and at which byte offset. It checks
// syntax only; whether anything matches is the selector check's job.
//
// Our own small parser, not a library: the Go CSS selector libraries
// (cascadia, andybalholm's) are matching engines that reject valid modern
// selectors Chromium accepts (:has with relative selectors, :is/:where's
// forgiving lists, nth-child(an+b of S), namespaces, case flags), and
// false alarms on valid CSS are worse than none.
func CheckCSS(sel string) (string, int, bool) {
	p := &cssParser{s: sel}
	p.selectorList(false, false)
	if p.err == "" {
		p.ws()
		if p.i < len(p.s) {
			p.fail(fmt.Sprintf("unexpected %q", p.peekText()))
		}
	}
	if p.err != "" {
		return p.err, p.errAt, false
	}
	return "", 0, true
}

type cssParser struct {
	s       string
	i       int
	err     string
	errAt   int
	depth   int    // inside the selector arguments of :is(), :not(), :has() ...
	element string // the pseudo-element the current compound has, if any
}

func (p *cssParser) fail(msg string) {
	if p.err == "" {
		p.err, p.errAt = msg, p.i
	}
}

func (p *cssParser) eof() bool { return p.i >= len(p.s) }

func (p *cssParser) peek() byte {
	if p.eof() {
		return 0
	}
	return p.s[p.i]
}

func (p *cssParser) peekText() string {
	r, _ := utf8.DecodeRuneInString(p.s[p.i:])
	return string(r)
}

// ws skips white space and comments; it reports whether it skipped any.
func (p *cssParser) ws() bool {
	start := p.i
	for !p.eof() {
		switch c := p.peek(); {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			p.i++
		case strings.HasPrefix(p.s[p.i:], "/*"):
			end := strings.Index(p.s[p.i+2:], "*/")
			if end < 0 {
				p.fail("a comment /* is never closed with */")
				p.i = len(p.s)
				return true
			}
			p.i += end + 4
		default:
			return p.i > start
		}
	}
	return p.i > start
}

func isNameStart(r rune) bool {
	return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0x80
}

func isName(r rune) bool { return isNameStart(r) || r == '-' || r >= '0' && r <= '9' }

// escape consumes a backslash escape at p.i.
func (p *cssParser) escape() bool {
	if p.peek() != '\\' {
		return false
	}
	if p.i+1 >= len(p.s) || p.s[p.i+1] == '\n' {
		p.fail("a backslash must escape a character")
		return false
	}
	p.i++
	n := 0
	for n < 6 && !p.eof() && isHex(p.peek()) {
		p.i++
		n++
	}
	if n == 0 {
		_, size := utf8.DecodeRuneInString(p.s[p.i:])
		p.i += size
	} else if !p.eof() && (p.peek() == ' ' || p.peek() == '\t' || p.peek() == '\n') {
		p.i++
	}
	return true
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// startsIdent reports whether an identifier starts at p.i.
func (p *cssParser) startsIdent() bool {
	rest := p.s[p.i:]
	if rest == "" {
		return false
	}
	r, size := utf8.DecodeRuneInString(rest)
	switch {
	case r == '-':
		if len(rest) < 2 {
			return false
		}
		r2, _ := utf8.DecodeRuneInString(rest[size:])
		return isNameStart(r2) || r2 == '-' || r2 == '\\'
	case r == '\\':
		return len(rest) > 1 && rest[1] != '\n'
	}
	return isNameStart(r)
}

// ident consumes an identifier and returns it (lowercased, escapes kept raw).
func (p *cssParser) ident() (string, bool) {
	if !p.startsIdent() {
		return "", false
	}
	start := p.i
	for !p.eof() {
		if p.peek() == '\\' {
			if !p.escape() {
				return "", false
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(p.s[p.i:])
		if !isName(r) {
			break
		}
		p.i += size
	}
	return strings.ToLower(p.s[start:p.i]), true
}

// name consumes name characters (after #).
func (p *cssParser) name() bool {
	start := p.i
	for !p.eof() {
		if p.peek() == '\\' {
			if !p.escape() {
				return false
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(p.s[p.i:])
		if !isName(r) {
			break
		}
		p.i += size
	}
	return p.i > start
}

func (p *cssParser) str() bool {
	q := p.peek()
	if q != '"' && q != '\'' {
		return false
	}
	start := p.i
	p.i++
	for !p.eof() {
		switch c := p.peek(); {
		case c == q:
			p.i++
			return true
		case c == '\\':
			p.i++
			if !p.eof() {
				p.i++
			}
		case c == '\n':
			p.i = start
			p.fail("a string in the selector is not closed on its line")
			return false
		default:
			p.i++
		}
	}
	return true // at the end of the selector CSS closes the string (Chromium accepts it)
}

// selectorList parses complex selectors separated by commas. relative: each
// may start with a combinator (:has). forgiving: invalid entries are
// dropped, as Chromium does inside :is() and :where().
func (p *cssParser) selectorList(relative, forgiving bool) {
	for {
		p.ws()
		if forgiving {
			start := p.i
			sub := &cssParser{s: p.s, i: p.i, depth: p.depth}
			sub.complex(relative)
			if sub.err == "" {
				p.i = sub.i
			} else {
				p.i = start
				p.skipArgument()
			}
		} else {
			p.complex(relative)
			if p.err != "" {
				return
			}
		}
		p.ws()
		if p.peek() != ',' {
			return
		}
		p.i++
	}
}

// skipArgument skips to the next top-level comma or closing parenthesis.
func (p *cssParser) skipArgument() {
	depth := 0
	for !p.eof() {
		switch c := p.peek(); c {
		case '(', '[':
			depth++
		case ')', ']':
			if depth == 0 {
				return
			}
			depth--
		case ',':
			if depth == 0 {
				return
			}
		case '"', '\'':
			if !p.str() {
				p.err = "" // a broken entry of a forgiving list is dropped
				p.i++
			}
			continue
		}
		p.i++
	}
}

func (p *cssParser) combinator() (byte, bool) {
	sawWS := p.ws()
	switch c := p.peek(); c {
	case '>', '+', '~':
		p.i++
		if c == '>' && p.peek() == '>' {
			p.i--
			p.fail(">>> (piercing shadow roots) is not CSS: css searches open shadow roots by itself")
			return 0, false
		}
		p.ws()
		return c, true
	}
	if sawWS {
		return ' ', true
	}
	return 0, false
}

func (p *cssParser) complex(relative bool) {
	p.ws()
	if relative {
		if c := p.peek(); c == '>' || c == '+' || c == '~' {
			p.i++
			p.ws()
		}
	}
	if !p.compound() {
		if p.err == "" {
			if p.eof() {
				p.fail("the selector is empty or ends too early")
			} else {
				p.fail(fmt.Sprintf("a selector cannot start with %q", p.peekText()))
			}
		}
		return
	}
	for p.err == "" {
		save := p.i
		c, ok := p.combinator()
		if p.err != "" {
			return
		}
		if !ok || p.eof() || p.peek() == ',' || p.peek() == ')' {
			if ok && c != ' ' {
				p.fail(fmt.Sprintf("the combinator %c needs a selector after it", c))
				return
			}
			p.i = save
			return
		}
		if !p.compound() {
			if p.err == "" {
				p.fail(fmt.Sprintf("unexpected %q", p.peekText()))
			}
			return
		}
	}
}

// compound parses a type or universal selector and its subclasses;
// false when nothing selector-like starts here.
func (p *cssParser) compound() bool {
	p.element = ""
	any := p.typeSelector()
	if p.err != "" {
		return false
	}
	for p.err == "" && !p.eof() {
		c := p.peek()
		if p.element != "" && c != ' ' && c != ',' && c != ')' && c != '>' && c != '+' && c != '~' {
			classAfter := c == ':' && !strings.HasPrefix(p.s[p.i:], "::")
			if !classAfter || !(p.element == "part" || strings.HasPrefix(p.element, "-webkit-")) {
				p.fail(fmt.Sprintf("nothing may follow the pseudo-element ::%s in its compound: put it last", p.element))
				return false
			}
		}
		switch c {
		case '#':
			hash := p.i
			p.i++
			if !p.startsIdent() {
				if p.name() {
					p.i = hash
					p.fail("an id selector must not start with a digit: write [id=\"...\"] or escape the digit (#\\31 23)")
				} else {
					p.fail("# needs an id after it")
				}
				return false
			}
			p.ident()
		case '.':
			p.i++
			if _, ok := p.ident(); !ok {
				p.fail(". needs a class name after it (a class cannot start with a digit)")
				return false
			}
		case '[':
			if !p.attribute() {
				return false
			}
		case ':':
			if !p.pseudo() {
				return false
			}
		case '&':
			p.i++ // the nesting selector; at top level it means :scope
		default:
			return any || p.err == "" && false
		}
		any = true
	}
	return any
}

// typeSelector parses ns|E, *|E, |E, E, * (each optional).
func (p *cssParser) typeSelector() bool {
	start := p.i
	named := false
	if p.peek() == '*' {
		p.i++
	} else if _, ok := p.ident(); !ok && p.peek() != '|' {
		return false
	} else {
		named = ok
	}
	if p.peek() == '|' && !strings.HasPrefix(p.s[p.i:], "|=") {
		if named {
			p.i = start
			p.fail("a namespace prefix (ns|E) needs an @namespace rule, which a selector map cannot declare: drop the prefix or write *|E")
			return false
		}
		p.i++
		if p.peek() == '*' {
			p.i++
		} else if _, ok := p.ident(); !ok {
			p.fail("| needs an element name or * after it")
			return false
		}
	}
	return p.i > start
}

var attrMatchers = []string{"~=", "|=", "^=", "$=", "*=", "="}

func (p *cssParser) attribute() bool {
	p.i++
	p.ws()
	// [ns|attr], [*|attr], [|attr], [attr]
	if p.peek() == '*' || p.peek() == '|' {
		if p.peek() == '*' {
			p.i++
		}
		if p.peek() != '|' {
			p.fail("an attribute selector needs an attribute name")
			return false
		}
		p.i++
	}
	if _, ok := p.ident(); !ok {
		p.fail("an attribute selector needs an attribute name, as in [name=email]")
		return false
	}
	if p.peek() == '|' && !strings.HasPrefix(p.s[p.i:], "|=") {
		p.i++
		if _, ok := p.ident(); !ok {
			p.fail("| needs an attribute name after it")
			return false
		}
	}
	p.ws()
	if p.peek() == ']' || p.eof() {
		p.i++
		return true
	}
	matched := false
	for _, m := range attrMatchers {
		if strings.HasPrefix(p.s[p.i:], m) {
			p.i += len(m)
			matched = true
			break
		}
	}
	if !matched {
		p.fail(fmt.Sprintf("unexpected %q in an attribute selector: use =, ~=, |=, ^=, $= or *=", p.peekText()))
		return false
	}
	p.ws()
	if !p.str() {
		if p.err != "" {
			return false
		}
		valueAt := p.i
		if _, ok := p.ident(); !ok {
			if p.name() {
				p.i = valueAt
				p.fail("an attribute value that starts with a digit or has spaces must be quoted, as in [data-id=\"123\"]")
			} else {
				p.fail("the attribute value is missing or must be quoted, as in [type=\"submit\"]")
			}
			return false
		}
	}
	p.ws()
	if c := p.peek(); c == 'i' || c == 'I' {
		p.i++
		p.ws()
	}
	if p.eof() {
		return true // CSS closes the [ at the end of the selector
	}
	if p.peek() != ']' {
		{
			p.fail(fmt.Sprintf("unexpected %q in an attribute selector (quote a value with spaces)", p.peekText()))
		}
		return false
	}
	p.i++
	return true
}

// Pseudo-classes and pseudo-elements Chromium knows (its parser refuses
// others), by argument.
var (
	pseudoClasses = words(`active any-link autofill -webkit-autofill checked default defined disabled empty enabled
		first-child first-of-type focus focus-visible focus-within fullscreen -webkit-full-screen future hover in-range
		indeterminate invalid last-child last-of-type link modal only-child only-of-type open optional
		out-of-range past picture-in-picture placeholder-shown popover-open read-only read-write required
		root scope target target-current user-invalid user-valid valid visited
		xr-overlay host -webkit-any-link -webkit-drag -webkit-full-page-media
		horizontal vertical decrement increment start end double-button single-button no-button corner-present window-inactive
		active-view-transition`)
	pseudoFuncs = map[string]string{
		"is": "forgiving", "where": "forgiving", "not": "list", "has": "relative", "-webkit-any": "compounds",
		"nth-child": "nth-of", "nth-last-child": "nth-of", "nth-of-type": "nth", "nth-last-of-type": "nth",
		"lang": "any", "dir": "any", "host": "compound", "host-context": "compound", "state": "any",
		"active-view-transition-type": "any",
	}
	pseudoElements = words(`after before backdrop cue first-letter first-line marker placeholder selection file-selector-button
		target-text spelling-error grammar-error view-transition details-content scroll-marker scroll-marker-group
		column checkmark picker-icon search-text`)
	pseudoElementFuncs = words(`cue part slotted highlight view-transition-group view-transition-image-pair view-transition-old
		view-transition-new`)
	legacyElements = words(`after before first-letter first-line`)
	// jQuery, Playwright and Selenium extensions authors bring along.
	notCSS = map[string]string{
		"contains": "use a text: locator (or text: /regex/) instead", "has-text": "use a text: locator instead",
		"text": "use a text: locator instead", "text-is": "use a text: locator instead", "visible": "the resolver only takes visible elements already",
		"eq": "use :nth-child(N) or nth: N in the step", "first": "use :first-child, or nth: 0 in the step", "last": "use :last-child",
		"gt": "use :nth-child(n+N)", "lt": "use :nth-child(-n+N)", "button": "use button, [type=button]",
		"input": "use input, select, textarea", "checkbox": "use [type=checkbox]", "hidden": "use [hidden] or wait: {hidden: ...}",
		"nth-match": "use :nth-child(An+B of S)", "right-of": "not CSS", "left-of": "not CSS", "above": "not CSS", "below": "not CSS", "near": "not CSS",
	}
	anbRE = regexp.MustCompile(`(?i)^\s*(odd|even|[+-]?\d+|[+-]?\d*n(\s*[+-]\s*\d+)?)\s*$`)
	ofRE  = regexp.MustCompile(`(?i)^\s*(odd|even|[+-]?\d+|[+-]?\d*n(\s*[+-]\s*\d+)?)\s+of\s`)
)

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

func (p *cssParser) pseudo() bool {
	at := p.i
	p.i++
	element := false
	if p.peek() == ':' {
		p.i++
		element = true
	}
	nameAt := p.i
	name, ok := p.ident()
	if !ok {
		p.fail(": needs a pseudo-class name after it, as in :first-child")
		return false
	}
	fn := p.peek() == '('
	if fn {
		p.i++
	}
	known := false
	kind := ""
	switch {
	case element && fn:
		known = pseudoElementFuncs[name]
		kind = "any"
	case element:
		known = pseudoElements[name] || strings.HasPrefix(name, "-webkit-")
	case fn:
		kind, known = pseudoFuncs[name]
	default:
		known = pseudoClasses[name] || legacyElements[name]
	}
	if !known {
		p.i = at
		colon := ":"
		if element {
			colon = "::"
		}
		if hint, ok := notCSS[name]; ok && !element {
			p.fail(fmt.Sprintf("%s%s is not CSS (it comes from jQuery or a test tool): %s", colon, name, hint))
		} else {
			p.i = nameAt
			p.fail(fmt.Sprintf("unknown pseudo-%s %s%s%s", map[bool]string{true: "element", false: "class"}[element], colon, name, map[bool]string{true: "()", false: ""}[fn]))
			p.i = at
		}
		return false
	}
	if element && p.depth > 0 {
		p.i = at
		p.fail(fmt.Sprintf("a pseudo-element (::%s) cannot go inside :is(), :not() or :has()", name))
		return false
	}
	if element || legacyElements[name] {
		defer func() { p.element = name }()
	}
	if !fn {
		return true
	}
	if !p.pseudoArgs(name, kind) {
		return false
	}
	p.ws()
	if p.peek() != ')' {
		if p.eof() {
			p.fail(fmt.Sprintf(":%s( is never closed with )", name))
		} else {
			p.fail(fmt.Sprintf("unexpected %q in :%s()", p.peekText(), name))
		}
		return false
	}
	p.i++
	return true
}

func (p *cssParser) pseudoArgs(name, kind string) bool {
	p.ws()
	p.depth++
	saved := p.element
	defer func() { p.depth--; p.element = saved }()
	switch kind {
	case "forgiving":
		p.selectorList(false, true)
	case "list":
		p.selectorList(false, false)
	case "relative":
		p.selectorList(true, false)
	case "compound":
		if !p.compound() && p.err == "" {
			p.fail(fmt.Sprintf(":%s() takes a compound selector", name))
		}
	case "compounds":
		for {
			p.ws()
			if !p.compound() {
				if p.err == "" {
					p.fail(fmt.Sprintf(":%s() takes compound selectors", name))
				}
				return false
			}
			p.ws()
			if p.peek() != ',' {
				break
			}
			p.i++
		}
	case "nth", "nth-of":
		end := p.argEnd()
		arg := p.s[p.i:end]
		if anbRE.MatchString(arg) {
			p.i = end
			break
		}
		if kind == "nth-of" {
			if m := ofRE.FindStringIndex(arg); m != nil {
				p.i += m[1]
				p.selectorList(false, false)
				break
			}
		}
		p.fail(fmt.Sprintf(":%s() takes An+B, such as 2, odd, even, 2n+1 or -n+3%s, found %q", name, map[bool]string{true: " (optionally \"of S\")", false: ""}[kind == "nth-of"], strings.TrimSpace(arg)))
	default:
		p.i = p.argEnd()
	}
	return p.err == ""
}

// argEnd is the offset of the parenthesis that closes the argument at p.i.
func (p *cssParser) argEnd() int {
	depth := 0
	var q byte
	for j := p.i; j < len(p.s); j++ {
		c := p.s[j]
		switch {
		case q != 0:
			if c == '\\' {
				j++
			} else if c == q {
				q = 0
			}
		case c == '"' || c == '\'':
			q = c
		case c == '(':
			depth++
		case c == ')':
			if depth == 0 {
				return j
			}
			depth--
		}
	}
	return len(p.s)
}
