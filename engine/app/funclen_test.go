package app_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function may be, from its func line to its
// closing brace, outside tests and examples.
const maxFuncLines = 80

// longFuncs are the functions over maxFuncLines still being split or
// replaced: none since issue 24 split the last three (the browser seams'
// Manager.open, Manager.attach and localProvider.launch). It stays as the
// place to list one while it is being split; a listed one that is no
// longer too long (or gone) is logged, to be taken off.
var longFuncs = map[string]bool{}

// TestFunctionLength fails on a function over maxFuncLines lines in the
// module's Go code, tests (_test.go files and the test-suite packages
// storetest and testsite), examples/ and testdata/ aside.
func TestFunctionLength(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	skip := map[string]bool{"examples": true, "engine/store/storetest": true, "internal/testsite": true}
	fset := token.NewFileSet()
	seen := map[string]bool{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (skip[rel] || d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			if n <= maxFuncLines {
				continue
			}
			name := filepath.ToSlash(filepath.Dir(rel)) + ":" + funcName(fd)
			seen[name] = true
			if !longFuncs[name] {
				t.Errorf("%s: %s is %d lines (at most %d): split it into well-named functions", rel, funcName(fd), n, maxFuncLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name := range longFuncs {
		if !seen[name] {
			t.Logf("%s is no longer over %d lines (or is gone): take it off longFuncs", name, maxFuncLines)
		}
	}
}

// funcName is Name, or Type.Name for a method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if g, ok := t.(*ast.IndexExpr); ok { // a generic receiver
		t = g.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}
