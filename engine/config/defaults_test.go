package config_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/decl"
	"gopkg.in/yaml.v3"
)

// TestDefaultsAsDocumented: the configuration block of the README (DESIGN.md's
// config section, with its comments) gives exactly the built-in defaults,
// once the values it only shows as examples (vars, secrets, the US-CA
// region) are dropped. The defaults come from config.Decl alone, so a
// default changed there, or in the docs, without the other fails here.
func TestDefaultsAsDocumented(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "## Configuration (`toolwright.yaml`)")
	if !ok {
		t.Fatal("README.md has no configuration section")
	}
	_, rest, _ = strings.Cut(rest, "```yaml\n")
	block, _, _ := strings.Cut(rest, "```")
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(block), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"vars", "secrets"} {
		if _, ok := doc[k]; !ok {
			t.Fatalf("the README's block has no %s: the test drops examples it no longer shows", k)
		}
		delete(doc, k)
	}
	delete(doc["regions"].(map[string]any), "US-CA")
	src, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	documented, ps := config.Parse(filepath.Join(dir, "toolwright.yaml"), src)
	if len(ps) > 0 {
		t.Fatalf("the README's config block does not load: %v", ps.Err())
	}
	// The block names the secret keys' defaults; a file naming one counts
	// as set.
	documented.Audit.KeySet, documented.Sessions.KeySet = false, false
	builtin := config.Default(dir)
	if diff := cmp.Diff(builtin, documented, cmpopts.IgnoreUnexported(config.Config{}), cmpopts.IgnoreFields(config.Config{}, "File"), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("built-in defaults (-) and the README's (+) differ:\n%s", diff)
	}
}

// TestEveryKeyFilled: every key config.Decl declares has a field of
// Config (tagged decl:"KEY") that Default and Parse fill, so no key is
// declared but read by hand. (Fill panics on the other way round: a tag
// naming no declared key.) A provider's section, browser.NAME, is filled
// from the provider's declaration instead: its keys that are flat keys of
// browser too fill those fields, the others Browser.Settings.
func TestEveryKeyFilled(t *testing.T) {
	var walk func(o *decl.Object, rt reflect.Type, where string)
	walk = func(o *decl.Object, rt reflect.Type, where string) {
		for rt.Kind() == reflect.Pointer || rt.Kind() == reflect.Map {
			rt = rt.Elem()
		}
		tagged := map[string]reflect.Type{}
		for i := 0; i < rt.NumField(); i++ {
			if k := rt.Field(i).Tag.Get("decl"); k != "" {
				tagged[k] = rt.Field(i).Type
			}
		}
		for _, f := range o.Fields {
			ft, ok := tagged[f.Name]
			switch {
			case o == config.BrowserDecl && f.Type == decl.Nested && f.Obj.Name == "browser."+f.Name:
				if _, ok := rt.FieldByName("Settings"); !ok {
					t.Errorf("browser.%s is a provider's section but Browser has no Settings", f.Name)
				}
			case !ok && o != config.NamedSecretDecl:
				t.Errorf("%s%s is declared but no field of %s is tagged decl:%q", where, f.Name, rt.Name(), f.Name)
			case ok && f.Type == decl.Nested:
				walk(f.Obj, ft, where+f.Name+".")
			case ok && f.Type == decl.Map && f.Elem != nil && f.Elem.Type == decl.Nested:
				walk(f.Elem.Obj, ft, where+f.Name+".NAME.")
			}
		}
	}
	walk(config.Decl, reflect.TypeOf(config.Config{}), "")
}
