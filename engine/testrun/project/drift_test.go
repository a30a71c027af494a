package project_test

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/decl"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/step"
	"github.com/toolwright/toolwright/engine/testrun"
	"github.com/toolwright/toolwright/engine/testrun/project"
	"github.com/toolwright/toolwright/engine/workflow"
)

// The drift test: every key an author writes is declared once (a
// decl.Object, or a step kind's Spec), and what decodes, documents and
// publishes keys reads that declaration. It fails when a schema or the
// reference names a set of keys no declaration has, or when a decoder
// reads keys by hand beside (or instead of) a declaration.

// declRoots are the declarations of everything an author writes; the
// objects below them are found through their fields.
func declRoots() []*decl.Object {
	roots := []*decl.Object{
		workflow.FileDecl, workflow.ParamDecl, workflow.ItemDecl, workflow.HandlerDecl,
		selector.EntryDecl, selector.LocatorDecl,
		config.Decl, config.SecretDecl, config.NamedSecretDecl,
		testrun.FileDecl, testrun.CaseDecl, testrun.MatcherDecl,
		step.RetryDecl, step.DialogDecl, step.TargetEntryDecl, workflow.OutputListDecl, step.ConditionObject(),
	}
	for _, sp := range step.Kinds() {
		roots = append(roots, sp.Object())
	}
	return roots
}

// declaredSets is every declared object's key set, as a sorted joined
// string, mapped to the object's name.
func declaredSets() map[string]string {
	out := map[string]string{}
	seen := map[*decl.Object]bool{}
	var walk func(o *decl.Object)
	var field func(f *decl.Field)
	field = func(f *decl.Field) {
		if f == nil {
			return
		}
		if f.Obj != nil {
			walk(f.Obj)
		}
		field(f.Elem)
	}
	walk = func(o *decl.Object) {
		if o == nil || seen[o] {
			return
		}
		seen[o] = true
		out[keySet(o.Names())] = o.Name
		for i := range o.Fields {
			field(&o.Fields[i])
		}
	}
	for _, o := range declRoots() {
		walk(o)
	}
	return out
}

func keySet(names []string) string {
	s := append([]string(nil), names...)
	sort.Strings(s)
	return strings.Join(s, ",")
}

// stepKeys are the keys of the step map itself: a kind, or a common key.
func stepKeys() string {
	var names []string
	names = append(names, step.KindNames()...)
	for _, f := range step.CommonFields {
		names = append(names, f.Name)
	}
	return keySet(names)
}

// schemaDrift walks a JSON Schema and returns every object whose
// properties are not exactly the keys of a declaration.
func schemaDrift(v any, path string, sets map[string]string, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		if props, ok := x["properties"].(map[string]any); ok {
			var names []string
			for k := range props {
				names = append(names, k)
			}
			ks := keySet(names)
			if _, ok := sets[ks]; !ok && !(strings.HasSuffix(path, "definitions.step") && ks == stepKeys()) {
				*out = append(*out, fmt.Sprintf("%s: properties {%s}", path, ks))
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			schemaDrift(x[k], path+"."+k, sets, out)
		}
	case []any:
		for i, e := range x {
			schemaDrift(e, fmt.Sprintf("%s[%d]", path, i), sets, out)
		}
	}
}

// knownSchemaDrift are the schema objects not yet generated from a
// declaration (issue 24), each with where its hand schema is. The test
// fails on any other, and on an entry here that no longer drifts.
var knownSchemaDrift = map[string]string{}

func TestDriftSchemas(t *testing.T) {
	sets := declaredSets()
	var found []string
	for _, name := range project.SchemaNames {
		b, err := project.Schema(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		schemaDrift(v, name, sets, &found)
	}
	checkKnown(t, "schema", found, knownSchemaDrift)
}

// checkKnown fails on each finding not in known and each known entry not
// found any more (the list only shrinks).
func checkKnown(t *testing.T, what string, found []string, known map[string]string) {
	t.Helper()
	for _, f := range found {
		if _, ok := known[f]; !ok {
			t.Errorf("%s drift: %s has no declaration: declare the keys (decl.Object or step.Field) and generate it from there", what, f)
		}
	}
	for k := range known {
		if !slices.Contains(found, k) {
			t.Errorf("%s drift: %s is declared now: drop it from the known list", what, k)
		}
	}
}

var docRow = regexp.MustCompile("^(?:\\| |- )`([a-z_]+)`")

// TestDriftDocs: every table of keys (and list of common step keys) in
// the authors' reference is exactly a declaration's keys.
func TestDriftDocs(t *testing.T) {
	var b strings.Builder
	if err := project.WriteReference(&b); err != nil {
		t.Fatal(err)
	}
	sets := declaredSets()
	common := make([]string, len(step.CommonFields))
	for i, f := range step.CommonFields {
		common[i] = f.Name
	}
	sets[keySet(common)] = "common step keys"
	var found []string
	var group []string
	start := 0
	flush := func(line int) {
		if len(group) > 0 {
			if _, ok := sets[keySet(group)]; !ok {
				found = append(found, fmt.Sprintf("reference line %d: keys {%s}", start, keySet(group)))
			}
		}
		group = nil
	}
	for i, line := range strings.Split(b.String(), "\n") {
		m := docRow.FindStringSubmatch(line)
		if m == nil {
			flush(i)
			continue
		}
		if len(group) == 0 {
			start = i + 1
		}
		group = append(group, m[1])
	}
	flush(0)
	checkKnown(t, "docs", found, map[string]string{})
}

// knownHandDecoding are the places that still read an author's keys by
// hand (issue 24), as file:function: what. The test fails on any other
// place and on an entry that no longer reads keys by hand.
var knownHandDecoding = map[string]string{}

// notAuthorKeys are comparisons with a .Key that read no author's key.
var notAuthorKeys = map[string]string{
	"record/draft.go:action: key == literal":            "a recorded key press (Enter), not a YAML key",
	"workflow/workflow.go:decodeParams: key == literal": "task_id and env_id: parameter names toolwright reserves, not keys",
}

// TestDriftDecoders reads the engine's source: a decoder that checks
// keys against a list of its own (slices.Contains([]string{...}, kv.Key),
// or a variable set to such a literal: the check yamlx.Known made before
// declarations replaced it) or picks keys by name
// (switch kv.Key, kv.Key == "x") outside engine/decl reads keys a
// declaration should hold.
func TestDriftDecoders(t *testing.T) {
	_, self, _, _ := runtime.Caller(0)
	engine := filepath.Join(filepath.Dir(self), "..", "..")
	found := handDecoding(t, engine)
	known := map[string]string{}
	for k, v := range knownHandDecoding {
		known[k] = v
	}
	var kept []string
	for _, f := range found {
		if _, ok := notAuthorKeys[f]; ok {
			continue
		}
		kept = append(kept, f)
	}
	checkKnown(t, "decoding", kept, known)
}

// handDecoding lists, once per function and pattern, where the engine's
// Go files (outside decl and yamlx, tests excluded) read keys by hand.
func handDecoding(t *testing.T, engine string) []string {
	t.Helper()
	isKey := func(e ast.Expr) bool {
		s, ok := e.(*ast.SelectorExpr)
		return ok && s.Sel.Name == "Key"
	}
	isLit := func(e ast.Expr) bool {
		b, ok := e.(*ast.BasicLit)
		return ok && b.Kind == token.STRING
	}
	// handList: a list written out here, not one a declaration makes
	// (decl.Names(...), an Object's Names()).
	handList := func(e ast.Expr) bool {
		if _, ok := e.(*ast.CompositeLit); ok {
			return true
		}
		if id, ok := e.(*ast.Ident); ok && id.Obj != nil {
			if vs, ok := id.Obj.Decl.(*ast.ValueSpec); ok {
				return slices.ContainsFunc(vs.Values, func(v ast.Expr) bool { _, lit := v.(*ast.CompositeLit); return lit })
			}
		}
		return false
	}
	var out []string
	err := filepath.Walk(engine, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(engine, p)
		rel = filepath.ToSlash(rel)
		if info.IsDir() {
			if rel == "decl" || rel == "yamlx" || strings.HasPrefix(rel, "project/skeleton") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		fs := token.NewFileSet()
		f, err := parser.ParseFile(fs, p, nil, 0)
		if err != nil {
			return err
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			add := func(what string) {
				s := rel + ":" + fd.Name.Name + ": " + what
				if !slices.Contains(out, s) {
					out = append(out, s)
				}
			}
			ast.Inspect(fd, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.CallExpr:
					if s, ok := x.Fun.(*ast.SelectorExpr); ok && (s.Sel.Name == "Contains" || s.Sel.Name == "Index") && len(x.Args) == 2 && handList(x.Args[0]) && isKey(x.Args[1]) {
						if id, ok := s.X.(*ast.Ident); ok && id.Name == "slices" {
							add("a key looked up in a list of its own")
						}
					}
				case *ast.SwitchStmt:
					if x.Tag != nil && isKey(x.Tag) {
						add("switch on a key")
					}
				case *ast.BinaryExpr:
					if (x.Op == token.EQL || x.Op == token.NEQ) && (isKey(x.X) && isLit(x.Y) || isKey(x.Y) && isLit(x.X)) {
						add("key == literal")
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
