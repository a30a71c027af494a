package kinds_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/step"
	_ "github.com/toolwright/toolwright/engine/step/kinds"
)

// core lists the packages that must know no step kind: they reach a kind
// only through its Spec and the optional interfaces of engine/step (paths
// from engine/; a package's own files, not its subpackages).
var core = []string{"run", "workflow", "step", "tmpl", "lint"}

// accessors are the methods that read a step's field or a kind's
// declaration by name (step.Step and step.Spec): a core file calling one
// with a literal names a kind's field.
var accessors = map[string]bool{
	"Has": true, "Str": true, "Tmpl": true, "Expr": true, "Dur": true, "Int": true, "Bool": true,
	"Ints": true, "Bound": true, "Steps": true, "Forms": true, "Targets": true, "Values": true,
	"Cond": true, "Field": true,
}

// TestCoreNamesNoKind: adding, renaming or removing a step kind touches its
// own file only. No non-test file of the core packages holds a string that
// is a registered kind's name ("paginate", or `Kind == "click"`), calls a
// field accessor with a literal (`Values("with")`, `Field("timeout")`), or
// starts a message as a kind would (`"call: unknown tool"`, "open_env: ...",
// "extract.into ...").
func TestCoreNamesNoKind(t *testing.T) {
	names := step.KindNames()
	kinds, fields := map[string]bool{}, map[string]bool{}
	for _, sp := range step.Kinds() {
		kinds[sp.Kind] = true
		for _, f := range sp.Fields {
			fields[f.Name] = true
		}
	}
	sort.Slice(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
	asKind := regexp.MustCompile(`^(` + strings.Join(names, "|") + `)(:|\.[a-z_]+)`)
	var found []string
	for _, dir := range core {
		files, err := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no Go files in engine/%s: %v", dir, err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			found = append(found, kindNames(t, file, kinds, fields, asKind)...)
		}
	}
	for _, f := range found {
		t.Error(f)
	}
	if len(found) > 0 {
		t.Log("a core package reaches kinds through their Spec (its fields' flags: Args, Timeout, Navigation; Pointer, Scope, ...) and the optional interfaces of engine/step/exec.go, never by name")
	}
}

// kindNames returns where file names a kind or a kind's field.
func kindNames(t *testing.T, file string, kinds, fields map[string]bool, asKind *regexp.Regexp) []string {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	at := func(n ast.Node, format string, args ...any) {
		p := fset.Position(n.Pos())
		rel := strings.TrimPrefix(filepath.ToSlash(p.Filename), "../../")
		out = append(out, fmt.Sprintf("engine/%s:%d: %s", rel, p.Line, fmt.Sprintf(format, args...)))
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BasicLit:
			if x.Kind != token.STRING {
				return true
			}
			v, err := strconv.Unquote(x.Value)
			if err != nil {
				return true
			}
			if kinds[v] {
				at(x, "%q names a step kind", v)
			} else if m := asKind.FindString(v); m != "" {
				at(x, "%q speaks as step kind %s", v, m)
			}
		case *ast.CallExpr:
			sel, ok := x.Fun.(*ast.SelectorExpr)
			if !ok || !accessors[sel.Sel.Name] || len(x.Args) != 1 {
				return true
			}
			if lit, ok := x.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if v, err := strconv.Unquote(lit.Value); err == nil && fields[v] {
					at(x, "%s(%s) reads a kind's field by name", sel.Sel.Name, lit.Value)
				}
			}
		}
		return true
	})
	return out
}
