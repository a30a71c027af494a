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
)

// aboveTheSeam are the packages that use browsers through the Manager and
// Provider: the manager's own files (this package's files that register no
// provider), and the layers above it.
var aboveTheSeam = []string{".", "../app", "../run", "../mcpserver", "../testrun", "../../cmd/toolwright"}

// TestNoProviderNamesAboveTheSeam: no code above the Provider interface
// tells providers apart by name. A provider's name may appear only in its
// own file (the one that calls RegisterProvider); the manager and the
// layers above ask for capabilities (Attacher, SessionKeeper, Starter)
// instead. It flags a registered name compared with == or != or used as a
// switch case, and any use of a provider's name constant (ProviderLocal,
// browser.ProviderCDP, ...).
func TestNoProviderNamesAboveTheSeam(t *testing.T) {
	t.Parallel()
	names := map[string]bool{}
	for _, n := range ProviderNames() {
		names[n] = true
	}
	if len(names) < 3 {
		t.Fatalf("registered providers %v, want local, cdp and webdriver at least", ProviderNames())
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
	// The providers' own files, and the constants that hold their names.
	own := map[*ast.File]bool{}
	consts := map[string]bool{}
	for _, f := range parsed["."] {
		if !registersProvider(f) {
			continue
		}
		own[f] = true
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, v := range vs.Values {
					if n, ok := nameLit(v, names); ok && n != "" {
						consts[vs.Names[i].Name] = true
					}
				}
			}
		}
	}
	if len(own) < 3 || len(consts) < 3 {
		t.Fatalf("found %d provider files and name constants %v: the test no longer finds the providers", len(own), consts)
	}

	var found []string
	report := func(n ast.Node, what string) {
		p := fset.Position(n.Pos())
		found = append(found, filepath.ToSlash(filepath.Clean(p.Filename))+":"+strconv.Itoa(p.Line)+": "+what)
	}
	for _, dir := range aboveTheSeam {
		for _, f := range parsed[dir] {
			if own[f] {
				continue
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
				case *ast.SelectorExpr:
					if x, ok := n.X.(*ast.Ident); ok && x.Name == "browser" && consts[n.Sel.Name] {
						report(n, "names provider constant browser."+n.Sel.Name)
					}
					return false
				case *ast.Ident:
					if dir == "." && consts[n.Name] {
						report(n, "names provider constant "+n.Name)
					}
				}
				return true
			})
		}
	}
	slices.Sort(found)
	for _, f := range found {
		t.Errorf("%s: ask the provider for a capability (providers.go) instead", f)
	}
}

// registersProvider reports whether f calls RegisterProvider.
func registersProvider(f *ast.File) bool {
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "RegisterProvider" {
				found = true
			}
		}
		return !found
	})
	return found
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
