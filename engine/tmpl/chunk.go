package tmpl

import (
	"fmt"
	"reflect"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
)

// chunkFunc is chunk(list, n): the list cut into consecutive lists of n
// items, the last one shorter when the length is not a multiple of n. It
// turns a flat list of cells read row by row into rows whose width is only
// known at run time (a table's columns), and, derived from one list, the
// result keeps that list's truncated mark (derivedFrom).
var chunkFunc = expr.Function("chunk", func(params ...any) (any, error) {
	list := reflect.ValueOf(params[0])
	if params[0] == nil {
		return []any{}, nil
	}
	if list.Kind() != reflect.Slice && list.Kind() != reflect.Array {
		return nil, fmt.Errorf("chunk: the first argument must be a list, found %T", params[0])
	}
	n, ok := toInt(params[1])
	if !ok || n < 1 {
		return nil, fmt.Errorf("chunk: the size must be a whole number of at least 1, found %v", params[1])
	}
	out := make([]any, 0, (list.Len()+n-1)/n)
	for i := 0; i < list.Len(); i += n {
		end := min(i+n, list.Len())
		row := make([]any, 0, end-i)
		for j := i; j < end; j++ {
			row = append(row, list.Index(j).Interface())
		}
		out = append(out, row)
	}
	return out, nil
}, new(func(any, any) []any))

func toInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case float64:
		if x == float64(int(x)) {
			return int(x), true
		}
	}
	return 0, false
}

// chunkSource is the list chunk(list, n) cuts, or nil for another call.
func chunkSource(n ast.Node) ast.Node {
	if c, ok := n.(*ast.CallNode); ok {
		if id, ok := c.Callee.(*ast.IdentifierNode); ok && id.Value == "chunk" && len(c.Arguments) > 0 {
			return c.Arguments[0]
		}
	}
	return nil
}
