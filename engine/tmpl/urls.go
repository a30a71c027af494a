package tmpl

import (
	"net/url"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
)

// URLRaw is a value urlraw() marked: a URL template puts it in as it is.
type URLRaw string

// functions are the names of the functions toolwright adds to expr-lang's.
var functions = map[string]bool{"urlraw": true, "chunk": true}

// urlrawFunc is urlraw(x): x as text, put into a URL without encoding.
var urlrawFunc = expr.Function("urlraw", func(params ...any) (any, error) {
	return URLRaw(Text(params[0])), nil
}, new(func(any) URLRaw))

// urlEncode is v as it goes into a URL after built, the URL so far: a
// value in the query (after "?") is encoded as a query component (so
// "x&y=1#z" stays one value), one in the path or the fragment segment by
// segment (its "/" stay; a "?" or "#" in it does not start another part). A
// value from urlraw() goes in as it is. A template's first value, which
// starts the URL (${{ config.base }}/login, a format: url parameter, an
// extracted href), is never encoded: Template.Eval writes it before this.
func urlEncode(built string, v any) string {
	if raw, ok := v.(URLRaw); ok {
		return string(raw)
	}
	s := Text(v)
	if strings.Contains(built, "?") && !strings.Contains(built, "#") {
		return url.QueryEscape(s)
	}
	// In the path a value may be several segments (a path parameter such
	// as /index.html): its "/" stay, everything else is escaped per segment,
	// so it cannot start a query or a fragment.
	segs := strings.Split(s, "/")
	for i, seg := range segs {
		segs[i] = url.PathEscape(seg)
	}
	return strings.Join(segs, "/")
}

// noMatchIndex makes findIndex and findLastIndex give -1 when nothing
// matches, as in JavaScript, instead of expr-lang's nil, so `vars.i < 0`
// means "not found". find and findLast still give no value (nil).
type noMatchIndex struct{}

func (noMatchIndex) Visit(node *ast.Node) {
	b, ok := (*node).(*ast.BuiltinNode)
	if !ok || (b.Name != "findIndex" && b.Name != "findLastIndex") {
		return
	}
	ast.Patch(node, &ast.BinaryNode{Operator: "??", Left: b, Right: &ast.IntegerNode{Value: -1}})
}

var noMatchIndexPatch = expr.Patch(noMatchIndex{})
