package browser

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/browser/provider"
)

// aboveTheSeam are the packages that use browsers through the Manager and
// the provider interfaces: the manager itself and the layers above it.
var aboveTheSeam = []string{".", "../app", "../run", "../mcpserver", "../testrun", "../../cmd/toolwright"}

// TestNoProviderNamesAboveTheSeam: no code above the provider interfaces
// tells providers apart by name. A provider's name appears only in its own
// package (engine/browser/provider/NAME, which calls provider.Register);
// the manager and the layers above ask for capabilities (Attacher,
// SessionKeeper, Starter) instead, and import no provider but package all.
// It flags a registered name compared with == or != or used as a switch
// case, and any import of one provider's package.
func TestNoProviderNamesAboveTheSeam(t *testing.T) {
	t.Parallel()
	names := map[string]bool{}
	for _, n := range provider.Names() {
		names[n] = true
	}
	if len(names) < 3 {
		t.Fatalf("registered providers %v, want local, cdp and webdriver at least", provider.Names())
	}
	fset := token.NewFileSet()
	parsed := map[string][]*ast.File{}
	for _, dir := range aboveTheSeam {
		paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(paths) == 0 {
			t.Fatalf("no Go files in %s (%v)", dir, err)
		}
		for _, p := range paths {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(fset, p, src, 0)
			if err != nil {
				t.Fatal(err)
			}
			parsed[dir] = append(parsed[dir], f)
		}
	}
	// The providers' own packages.
	const providers = "github.com/toolwright/toolwright/engine/browser/provider/"
	dirs, _ := filepath.Glob("provider/*/*.go")
	own := map[string]bool{}
	for _, p := range dirs {
		if src, err := os.ReadFile(p); err == nil && strings.Contains(string(src), "provider.Register(") {
			own[providers+filepath.Base(filepath.Dir(p))] = true
		}
	}
	if len(own) < 3 {
		t.Fatalf("found the provider packages %v: the test no longer finds the providers", own)
	}

	var found []string
	report := func(n ast.Node, what string) {
		p := fset.Position(n.Pos())
		found = append(found, filepath.ToSlash(filepath.Clean(p.Filename))+":"+strconv.Itoa(p.Line)+": "+what)
	}
	for _, dir := range aboveTheSeam {
		for _, f := range parsed[dir] {
			for _, im := range f.Imports {
				if path, _ := strconv.Unquote(im.Path.Value); own[path] {
					report(im, "imports the provider "+path)
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.BinaryExpr:
					if n.Op == token.EQL || n.Op == token.NEQ {
						for _, side := range []ast.Expr{n.X, n.Y} {
							if name, ok := nameLit(side, names); ok {
								report(n, "compares with provider name "+strconv.Quote(name))
							}
						}
					}
				case *ast.CaseClause:
					for _, e := range n.List {
						if name, ok := nameLit(e, names); ok {
							report(e, "switches on provider name "+strconv.Quote(name))
						}
					}
				}
				return true
			})
		}
	}
	slices.Sort(found)
	for _, f := range found {
		t.Errorf("%s: ask the provider for a capability (engine/browser/provider) instead", f)
	}
}

// nameLit is the provider name e spells as a string literal.
func nameLit(e ast.Expr, names map[string]bool) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil && names[s]
}
