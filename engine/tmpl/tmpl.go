// Package tmpl compiles `${{ }}` templates and bare expressions with
// expr-lang at load time, against the names a workflow may use at each place,
// and evaluates them many times at run time.
package tmpl

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
	"github.com/toolwright/toolwright/engine/lint"
	"gopkg.in/yaml.v3"
)

// Top-level names every expression may use.
const (
	Params  = "params"
	Config  = "config"
	Secrets = "secrets"
	EnvName = "env"
	Page    = "page"
	Vars    = "vars"
	Loop    = "loop"
	Item    = "item"
)

var (
	envFields  = []string{"id", "region", "purpose"}
	pageFields = []string{"url", "title", "dialog"}
)

// Scope says which names an expression may use at its place.
type Scope struct {
	Params         []string // declared parameter names
	Config         []string // keys of the config's vars:
	Secrets        []string // declared secret names
	SecretsAllowed bool     // only fill.value
	Vars           []string // variables some step of the workflow sets
	Loop           bool     // inside a loop: loop.index exists
	// LoopFields are the innermost loop's loop.* fields beyond index (a
	// kind's Spec.Scope says them, through InLoop).
	LoopFields []string
	Items      []string // names bound by enclosing for_each (item or its `as`)
	// VarShapes says what some variables hold, where the steps that set
	// them say (an extract list, a screenshot's reference), so a wrong
	// field access is a load error.
	VarShapes map[string]Shape
	// URL: the template builds a URL (goto.url, wait.url): a value it puts
	// in after the URL's start is URL-encoded as the part it lands in
	// (urlEncode); urlraw(x) opts out.
	URL bool
}

// Shape is what a variable holds, as far as load time knows.
type Shape struct {
	Kind   string   // "list", "object", "text" or "number"
	Fields []string // object: its fields; list: its items' fields (items are objects then)
}

// With returns a copy of s with changes applied by f.
func (s Scope) With(f func(*Scope)) Scope {
	s.Items = append([]string(nil), s.Items...)
	f(&s)
	return s
}

// InLoop returns a copy of s inside a loop whose loop.* has index and
// fields: an enclosing loop's fields are not the inner loop's.
func (s Scope) InLoop(fields ...string) Scope {
	return s.With(func(x *Scope) { x.Loop = true; x.LoopFields = fields })
}

// Env is the run-time environment of one evaluation.
type Env map[string]any

// Template is a compiled string value. A value that is only one `${{ }}`
// keeps its type; otherwise the parts are joined as text.
type Template struct {
	Source   string
	literal  any
	single   *vm.Program
	code     string // the expression of single, for messages
	parts    []part
	url      bool   // a URL: values after its start are encoded (Scope.URL)
	UsesPage bool   // evaluating needs page.url/page.title
	VarRef   string // set when the whole template is `${{ vars.NAME }}`
	ParamRef string // set when the whole template is `${{ params.NAME }}`
	// ListOf names the variables a whole template's list comes from:
	// vars.NAME itself, or a list derived from it alone (map, filter, sort,
	// sortBy, reverse, a slice), which keeps its truncated mark; `??` and
	// the ternary name both sides (Truncated).
	ListOf  []string
	Secrets []string // the secrets.NAME the template reads
}

type part struct {
	text string
	code string
	prog *vm.Program
}

// Literal makes a template that always yields v.
func Literal(v any) *Template { return &Template{literal: v, Source: fmt.Sprint(v)} }

// IsLiteral reports whether the template has no expression.
func (t *Template) IsLiteral() bool { return t.single == nil && t.parts == nil }

// Value returns the literal value of a template without expressions.
func (t *Template) Value() any { return t.literal }

// Eval evaluates the template.
func (t *Template) Eval(env Env) (any, error) {
	switch {
	case t.single != nil:
		v, err := expr.Run(t.single, map[string]any(env))
		if err != nil {
			return nil, evalFailed(t.code, err)
		}
		return v, nil
	case t.parts != nil:
		var b strings.Builder
		for i, p := range t.parts {
			if p.prog == nil {
				b.WriteString(p.text)
				continue
			}
			v, err := expr.Run(p.prog, map[string]any(env))
			if err != nil {
				return nil, evalFailed(p.code, err)
			}
			if t.url && i > 0 { // the first part starts the URL: its base
				b.WriteString(urlEncode(b.String(), v))
				continue
			}
			b.WriteString(Text(v))
		}
		return b.String(), nil
	}
	return t.literal, nil
}

// String evaluates the template as text.
func (t *Template) String(env Env) (string, error) {
	v, err := t.Eval(env)
	if err != nil {
		return "", err
	}
	return Text(v), nil
}

// Text renders a value as text: nil is "", whole floats have no decimals.
func Text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case URLRaw:
		return string(x)
	case float64:
		if x == float64(int64(x)) {
			return fmt.Sprintf("%d", int64(x))
		}
	}
	return fmt.Sprint(v)
}

// Expr is a compiled bare expression (if:, while:, until:, assert.that, items:).
type Expr struct {
	Source   string
	prog     *vm.Program
	UsesPage bool
}

// Run evaluates the expression; a failure is an *EvalError.
func (e *Expr) Run(env Env) (any, error) {
	v, err := expr.Run(e.prog, map[string]any(env))
	if err != nil {
		return nil, evalFailed(e.Source, err)
	}
	return v, nil
}

// Bool evaluates a condition; a non-boolean result is an error.
func (e *Expr) Bool(env Env) (bool, error) {
	v, err := e.Run(env)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, &EvalError{Source: e.Source, Reason: fmt.Sprintf("a condition must give true or false, and it gave %s", kindWords(v)),
			Err: fmt.Errorf("condition %q gave %T, not true or false", e.Source, v)}
	}
	return b, nil
}

// Site locates a scalar inside a file for error positions.
type Site struct {
	File string
	Node *yaml.Node
}

// pos maps a rune offset within the scalar's value to a file position.
func (s Site) pos(offset int) lint.Pos {
	p := lint.At(s.File, s.Node)
	if s.Node == nil {
		return p
	}
	val := []rune(s.Node.Value)
	if offset > len(val) {
		offset = len(val)
	}
	line, col := 0, 0
	for _, r := range val[:offset] {
		if r == '\n' {
			line++
			col = 0
		} else {
			col++
		}
	}
	switch s.Node.Style {
	case yaml.LiteralStyle, yaml.FoldedStyle:
		return lint.Pos{File: s.File, Line: p.Line + 1 + line, Col: p.Col + 2 + col}
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		col++
	}
	if line > 0 {
		return lint.Pos{File: s.File, Line: p.Line + line, Col: col + 1}
	}
	return lint.Pos{File: s.File, Line: p.Line, Col: p.Col + col}
}

// unclosed says why the template opened at start has no }}: one brace, or
// a YAML comment that cut an unquoted value short (` #` starts one, so
// `${{ map(vars.rows, #.title) }}` reaches the engine as `${{ map(vars.rows,`),
// or none at all. It returns the offset to report at.
func unclosed(runes []rune, start int, site Site) (int, string) {
	if n := site.Node; n != nil && n.Style == 0 && strings.HasPrefix(n.LineComment, "#") {
		whole := string(runes) + " " + n.LineComment
		return start, fmt.Sprintf("template ${{ is never closed: YAML read %q as a comment (in a value that is not quoted, a # after a space starts one) and cut the value there; quote the whole value, as in '%s'",
			n.LineComment, strings.ReplaceAll(whole, "'", "''"))
	}
	if one := indexRunes(runes, start+3, "}"); one >= 0 {
		return one, fmt.Sprintf("the template closes with one brace: write ${{ %s }}", strings.TrimSpace(string(runes[start+3:one])))
	}
	return start, "template ${{ is never closed: end it with }}"
}

// CompileTemplate compiles a string value, reporting problems at their place.
func CompileTemplate(src string, site Site, sc Scope, ps *lint.Problems) *Template {
	t := &Template{Source: src, url: sc.URL}
	if off, fix, ok := nearMiss(blankTemplates(src)); ok {
		ps.Addf(site.pos(off), lint.Expression, "%s", fix)
		t.literal = src
		return t
	}
	if !strings.Contains(src, "${{") {
		t.literal = src
		return t
	}
	runes := []rune(src)
	ok := true
	var parts []part
	i := 0
	for i < len(runes) {
		start := indexRunes(runes, i, "${{")
		if start < 0 {
			parts = append(parts, part{text: string(runes[i:])})
			break
		}
		if start > i {
			parts = append(parts, part{text: string(runes[i:start])})
		}
		end := templateEnd(runes, start+3)
		if end < 0 {
			at, msg := unclosed(runes, start, site)
			ps.Addf(site.pos(at), lint.Expression, "%s", msg)
			ok = false
			break
		}
		code := string(runes[start+3 : end])
		if strings.TrimSpace(code) == "" {
			ps.Addf(site.pos(start), lint.Expression, "empty template ${{ }}")
			ok = false
		} else if prog, info, good := compile(code, site, start+3, sc, false, ps); good {
			parts = append(parts, part{prog: prog, code: code})
			t.UsesPage = t.UsesPage || info.usesPage
			t.Secrets = append(t.Secrets, info.secrets...)
			if len(runes) == end+2 && start == 0 {
				t.VarRef, t.ParamRef, t.ListOf = info.varRef, info.paramRef, info.listOf
			}
		} else {
			ok = false
		}
		i = end + 2
	}
	if !ok {
		t.literal = src
		return t
	}
	if len(parts) == 1 && parts[0].prog != nil {
		t.single, t.code = parts[0].prog, parts[0].code
		return t
	}
	t.VarRef, t.ParamRef, t.ListOf = "", "", nil
	t.parts = parts
	return t
}

// CompileExpr compiles a bare expression; asBool checks a condition.
func CompileExpr(src string, site Site, sc Scope, asBool bool, ps *lint.Problems) *Expr {
	code := strings.TrimSpace(src)
	if strings.HasPrefix(code, "${{") && strings.HasSuffix(code, "}}") {
		// Accept the template form too: `if: ${{ x }}` reads naturally.
		code = code[3 : len(code)-2]
	}
	off := strings.Index(src, code)
	if off < 0 {
		off = 0
	}
	if strings.TrimSpace(code) == "" {
		ps.Addf(site.pos(0), lint.Expression, "the expression is empty")
		return nil
	}
	prog, info, ok := compile(code, site, len([]rune(src[:off])), sc, asBool, ps)
	if !ok {
		return nil
	}
	return &Expr{Source: code, prog: prog, UsesPage: info.usesPage}
}

type info struct {
	secrets  []string
	usesPage bool
	varRef   string
	paramRef string
	listOf   []string
}

// compile parses, checks names against the scope, then compiles.
func compile(code string, site Site, offset int, sc Scope, asBool bool, ps *lint.Problems) (*vm.Program, info, bool) {
	var in info
	tree, err := parser.Parse(code)
	if err != nil {
		if at, fix, ok := foreignOp(code); ok {
			ps.Addf(site.pos(offset+at), lint.Expression, "expression %q: %s", strings.TrimSpace(code), fix)
			return nil, in, false
		}
		if m := closureMap.FindStringSubmatchIndex(code); m != nil {
			lit := code[m[4]:m[5]]
			ps.Addf(site.pos(offset+len([]rune(code[:m[4]]))), lint.Expression, "expression %q: in %s(...) braces hold the code run for each item; to make a map for each item give it its own braces: {%s}", strings.TrimSpace(code), code[m[2]:m[3]], lit)
			return nil, in, false
		}
		addExprErr(err, code, site, offset, ps)
		return nil, in, false
	}
	c := &checker{sc: sc, site: site, offset: offset, ps: ps, locals: map[string]bool{}, checked: nilChecked(tree.Node)}
	ast.Walk(&tree.Node, c)
	in.usesPage = c.usesPage
	in.secrets = c.secrets
	if m, ok := tree.Node.(*ast.MemberNode); ok {
		if id, ok := m.Node.(*ast.IdentifierNode); ok {
			if s, ok := m.Property.(*ast.StringNode); ok {
				switch id.Value {
				case Vars:
					in.varRef = s.Value
				case Params:
					in.paramRef = s.Value
				}
			}
		}
	}
	in.listOf = derivedFrom(tree.Node)
	if c.bad {
		return nil, in, false
	}
	key := progKey{code: code, loop: sc.Loop, asBool: asBool}
	if prog := programs.get(key); prog != nil {
		return prog, in, true
	}
	// Names were checked above; undefined ones (for_each items, whose type
	// is only known at run time) compile as dynamic values.
	opts := []expr.Option{expr.Env(compileEnv(sc)), expr.AllowUndefinedVariables(), urlrawFunc, chunkFunc, noMatchIndexPatch}
	if asBool {
		opts = append(opts, expr.AsBool())
	}
	prog, err := expr.Compile(code, opts...)
	if err != nil {
		addExprErr(err, code, site, offset, ps)
		return nil, in, false
	}
	programs.put(key, prog)
	return prog, in, true
}

// progKey is what an expr-lang program depends on: its code and the
// environment compileEnv builds (only loop.* varies) and AsBool.
type progKey struct {
	code         string
	loop, asBool bool
}

// programs memoizes compiled programs. Workflows repeat expressions
// (${{ params.query }}, ${{ config.base }}), and a hot reload compiles every
// unchanged file again; expr-lang's Compile builds a fresh configuration
// each time. A *vm.Program is read-only once compiled, and expr.Run may use
// one from many goroutines. Names and positions are still checked for every
// site above: only the compile is shared.
var programs = &progCache{}

type progCache struct {
	mu sync.Mutex
	m  map[progKey]*vm.Program
}

// maxPrograms bounds the cache; past it, it starts again empty.
const maxPrograms = 8192

func (c *progCache) get(k progKey) *vm.Program {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[k]
}

func (c *progCache) put(k progKey, p *vm.Program) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxPrograms {
		c.m = map[progKey]*vm.Program{}
	}
	c.m[k] = p
}

// compileEnv is the environment expr type-checks against: every name the
// scope allows, with dynamic values below it.
func compileEnv(sc Scope) map[string]any {
	env := map[string]any{
		Params: map[string]any{}, Config: map[string]any{}, Secrets: map[string]any{},
		EnvName: map[string]any{}, Page: map[string]any{}, Vars: map[string]any{},
	}
	if sc.Loop {
		env[Loop] = map[string]any{}
	}
	return env
}

func addExprErr(err error, code string, site Site, offset int, ps *lint.Problems) {
	var fe *file.Error
	if errors.As(err, &fe) {
		col := fe.Column
		if fe.Line > 1 {
			// Multi-line expressions: count runes up to the line.
			lines := strings.SplitN(code, "\n", fe.Line)
			n := 0
			for _, l := range lines[:len(lines)-1] {
				n += len([]rune(l)) + 1
			}
			col += n
		}
		ps.Addf(site.pos(offset+col), lint.Expression, "expression %q: %s", strings.TrimSpace(code), fe.Message)
		return
	}
	ps.Addf(site.pos(offset), lint.Expression, "expression %q: %v", strings.TrimSpace(code), err)
}

type checker struct {
	sc       Scope
	site     Site
	offset   int
	ps       *lint.Problems
	locals   map[string]bool
	bad      bool
	usesPage bool
	secrets  []string
	checked  map[string]bool // values the expression compares with nil (x != nil)
}

func (c *checker) at(n ast.Node) lint.Pos { return c.site.pos(c.offset + n.Location().From) }

func (c *checker) fail(n ast.Node, kind, format string, args ...any) {
	c.bad = true
	c.ps.Addf(c.at(n), kind, format, args...)
}

func (c *checker) tops() []string {
	t := []string{Params, Config, Secrets, EnvName, Page, Vars}
	if c.sc.Loop {
		t = append(t, Loop)
	}
	return append(t, c.sc.Items...)
}

func (c *checker) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.VariableDeclaratorNode:
		c.locals[n.Name] = true
	case *ast.IdentifierNode:
		name := n.Value
		if c.locals[name] || slices.Contains(c.tops(), name) || functions[name] {
			if name == Secrets && !c.sc.SecretsAllowed {
				c.fail(n, lint.Secret, "secrets.* may be used only in fill.value, so no secret reaches a result, a trace or a URL")
			}
			if name == Page {
				c.usesPage = true
			}
			return
		}
		hint := lint.Suggest(name, c.tops())
		if w, ok := foreignWords[name]; ok {
			hint = fmt.Sprintf(" (write %s)", w)
		}
		if name == Loop {
			hint = " (loop.* exists only inside repeat, for_each and paginate)"
		} else if name == Item {
			hint = " (item exists only inside for_each)"
		}
		c.fail(n, lint.UnknownRef, "unknown name %q%s", name, hint)
	case *ast.BinaryNode:
		c.warnNoValue(n)
	case *ast.MemberNode:
		c.checkShape(n)
		id, ok := n.Node.(*ast.IdentifierNode)
		if !ok || c.locals[id.Value] {
			return
		}
		prop, ok := n.Property.(*ast.StringNode)
		if !ok {
			return
		}
		var known []string
		var what string
		switch id.Value {
		case Params:
			known, what = c.sc.Params, "parameter"
		case Config:
			known, what = c.sc.Config, "config var"
		case Secrets:
			known, what = c.sc.Secrets, "secret"
			c.secrets = append(c.secrets, prop.Value)
		case EnvName:
			known, what = envFields, "env field"
		case Page:
			known, what = pageFields, "page field"
		case Vars:
			known, what = c.sc.Vars, "variable"
		case Loop:
			if !c.sc.Loop {
				return // reported on the identifier
			}
			known, what = append([]string{"index"}, c.sc.LoopFields...), "loop field"
		default:
			return
		}
		if !slices.Contains(known, prop.Value) {
			suffix := lint.Suggest(prop.Value, known)
			if suffix == "" && len(known) > 0 && len(known) <= 8 {
				sorted := append([]string(nil), known...)
				sort.Strings(sorted)
				suffix = fmt.Sprintf(" (known: %s)", strings.Join(sorted, ", "))
			}
			if id.Value == Vars && suffix == "" {
				suffix = " (no step sets it: use set, extract.into, call.into or screenshot.into)"
			}
			c.fail(id, lint.UnknownRef, "unknown %s %s.%s%s", what, id.Value, prop.Value, suffix)
		}
	}
}

// warnNoValue warns about an ordering comparison (<, >, <=, >=) one of
// whose sides can be no value at run time (find finding nothing, first of
// an empty list, or a field of those): with no value it ends the call
// assertion_failed. A default (x ?? 0) or a nil check of the same value
// in the expression silences it.
func (c *checker) warnNoValue(n *ast.BinaryNode) {
	switch n.Operator {
	case "<", ">", "<=", ">=":
	default:
		return
	}
	for _, side := range []ast.Node{n.Left, n.Right} {
		why := noValueWhy(side)
		if why == "" || c.checked[side.String()] {
			continue
		}
		src := shortSource(side)
		c.ps.Addf(c.site.pos(c.offset+leftmost(side)), lint.Warning, "%s can be no value (%s), and %s with no value ends the call assertion_failed: give a default (%s ?? 0) or check %s != nil first",
			src, why, n.Operator, src, src)
	}
}

// noValueWhy says why n can be no value at run time, "" when it cannot
// as far as load time knows.
func noValueWhy(n ast.Node) string {
	switch x := n.(type) {
	case *ast.BuiltinNode:
		switch x.Name {
		case "find", "findLast":
			return x.Name + " finds nothing"
		case "first", "last":
			return "the list is empty"
		}
	case *ast.MemberNode:
		if !x.Optional {
			return noValueWhy(x.Node)
		}
	}
	return ""
}

// shortSource names a value for a message: find(...).qty.
func shortSource(n ast.Node) string {
	switch x := n.(type) {
	case *ast.BuiltinNode:
		return x.Name + "(...)"
	case *ast.MemberNode:
		if p, ok := x.Property.(*ast.StringNode); ok {
			return shortSource(x.Node) + "." + p.Value
		}
		return shortSource(x.Node) + "[...]"
	}
	return n.String()
}

// leftmost is the offset where n's source starts.
func leftmost(n ast.Node) int {
	at := n.Location().From
	ast.Find(n, func(m ast.Node) bool {
		if f := m.Location().From; f < at {
			at = f
		}
		return false
	})
	return at
}

// nilChecked lists the values an expression compares with nil (x != nil,
// nil != x, x == nil), by their source.
func nilChecked(root ast.Node) map[string]bool {
	out := map[string]bool{}
	ast.Find(root, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryNode)
		if !ok || (b.Operator != "!=" && b.Operator != "==") {
			return false
		}
		if _, ok := b.Right.(*ast.NilNode); ok {
			out[b.Left.String()] = true
		}
		if _, ok := b.Left.(*ast.NilNode); ok {
			out[b.Right.String()] = true
		}
		return false
	})
	return out
}

// derivedFrom names the variables a list expression comes from when it is
// vars.NAME or keeps a subset of its items, in any order or shape: map,
// filter, sort, sortBy, reverse, a slice. `a ?? b` and `c ? a : b` come
// from either side: both are named (a literal side names none, so
// `vars.rows ?? []` is vars.rows's). nil otherwise.
func derivedFrom(n ast.Node) []string {
	switch x := n.(type) {
	case *ast.MemberNode:
		if id, ok := x.Node.(*ast.IdentifierNode); ok && id.Value == Vars {
			if s, ok := x.Property.(*ast.StringNode); ok {
				return []string{s.Value}
			}
		}
	case *ast.SliceNode:
		return derivedFrom(x.Node)
	case *ast.CallNode:
		if src := chunkSource(x); src != nil {
			return derivedFrom(src)
		}
	case *ast.BuiltinNode:
		switch x.Name {
		case "map", "filter", "sort", "sortBy", "reverse":
			if len(x.Arguments) > 0 {
				return derivedFrom(x.Arguments[0])
			}
		}
	case *ast.BinaryNode:
		if x.Operator == "??" {
			return append(derivedFrom(x.Left), derivedFrom(x.Right)...)
		}
	case *ast.ConditionalNode:
		return append(derivedFrom(x.Exp1), derivedFrom(x.Exp2)...)
	}
	return nil
}

// Truncated reports whether the list t evaluates to was cut: whether one
// of the lists it comes from (ListOf) is marked truncated. Where it comes
// from one of two (`??`, the ternary) it says truncated when either was
// cut: never a cut list called whole, at the cost of a whole one called
// cut when the branch not taken was.
func (t *Template) Truncated(marked func(name string) bool) bool {
	if t == nil {
		return false
	}
	for _, name := range t.ListOf {
		if marked(name) {
			return true
		}
	}
	return false
}

// closureMap finds `map(xs, {k: v})`: a map literal written as the
// closure itself, which expr-lang reads as code ("unexpected token :").
var closureMap = regexp.MustCompile(`\b(map|filter|all|any|none|one|find|findIndex|findLast|findLastIndex|count|sum|groupBy|sortBy)\(.*?,\s*(\{\s*[A-Za-z_"'][A-Za-z0-9_"']*\s*:[^{}]*\})`)

// templateEnd returns the index of the }} that closes a template whose
// code starts at from: braces of the code's own map literals and closures
// (`map(rows, {{title: #.t}})`) and strings are skipped; -1 when none.
func templateEnd(r []rune, from int) int {
	depth := 0
	var quote rune
	for i := from; i < len(r); i++ {
		c := r[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '}' && depth == 0:
			if i+1 < len(r) && r[i+1] == '}' {
				return i
			}
		case c == '{':
			depth++
		case c == '}':
			depth--
		}
	}
	// An unbalanced brace or quote: the first }} as written.
	return indexRunes(r, from, "}}")
}

// blankTemplates replaces the code inside each ${{ }} with spaces (rune
// for rune), so near misses of the delimiters are looked for only outside
// templates: a map literal's {{title: #.t}} is code, not a template
// without its $. A code that starts with { keeps it (`${{{` is a near miss).
func blankTemplates(src string) string {
	if !strings.Contains(src, "${{") {
		return src
	}
	r := []rune(src)
	for i := 0; i < len(r); {
		start := indexRunes(r, i, "${{")
		if start < 0 {
			break
		}
		end := templateEnd(r, start+3)
		if end < 0 {
			break
		}
		for j := start + 3; j < end; j++ {
			if j == start+3 && r[j] == '{' {
				continue
			}
			r[j] = ' '
		}
		i = end + 2
	}
	return string(r)
}

func indexRunes(r []rune, from int, sub string) int {
	s := []rune(sub)
	for i := from; i+len(s) <= len(r); i++ {
		match := true
		for j := range s {
			if r[i+j] != s[j] {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}

// checkShape reports a field access on a variable whose shape is known and
// has no such field: vars.rows.items where vars.rows is a list.
func (c *checker) checkShape(n *ast.MemberNode) {
	inner, ok := n.Node.(*ast.MemberNode)
	if !ok {
		return
	}
	id, ok := inner.Node.(*ast.IdentifierNode)
	if !ok || id.Value != Vars || c.locals[Vars] {
		return
	}
	name, ok := inner.Property.(*ast.StringNode)
	if !ok {
		return
	}
	field, ok := n.Property.(*ast.StringNode)
	if !ok {
		return
	}
	sh, ok := c.sc.VarShapes[name.Value]
	if !ok {
		return
	}
	v := "vars." + name.Value
	switch sh.Kind {
	case "list":
		hint := fmt.Sprintf("write %s for the list itself", v)
		switch field.Value {
		case "count", "length", "len", "size":
			hint = fmt.Sprintf("write len(%s)", v)
		case "items":
			hint = fmt.Sprintf("write %s: it is the list; {items, count, truncated} is how lists leave the engine, in the result", v)
		}
		c.fail(field, lint.BadValue, "%s is a list: it has no field %q (%s; %s[0] is its first item)", v, field.Value, hint, v)
	case "text":
		c.fail(field, lint.BadValue, "%s is text: it has no field %q", v, field.Value)
	case "number":
		c.fail(field, lint.BadValue, "%s is a number: it has no field %q", v, field.Value)
	case "object":
		if len(sh.Fields) > 0 && !slices.Contains(sh.Fields, field.Value) {
			c.fail(field, lint.UnknownRef, "%s has no field %q%s", v, field.Value, lint.Suggest(field.Value, sh.Fields)+fmt.Sprintf(" (it has %s)", strings.Join(sh.Fields, ", ")))
		}
	}
}
