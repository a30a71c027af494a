package step_test

import (
	"context"
	"testing"

	"github.com/toolwright/toolwright/engine/step"
	_ "github.com/toolwright/toolwright/engine/step/kinds"
)

func noop(context.Context, step.Exec, *step.Step) error { return nil }

func TestRegisterRefusesMistakes(t *testing.T) {
	for name, spec := range map[string]*step.Spec{
		"duplicate":        {Kind: "click", Run: noop},
		"no run":           {Kind: "brand_new"},
		"no name":          {Run: noop},
		"unknown shortcut": {Kind: "brand_new_2", Short: "nope", Run: noop},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Register did not panic", name)
				}
			}()
			step.Register(spec)
		}()
	}
}

// TestEveryKindDeclared: the DESIGN.md kinds are all registered (a subset:
// a new kind is one new file and no edit here), each with a doc, an
// example, and documented fields.
func TestEveryKindDeclared(t *testing.T) {
	want := []string{"assert", "call", "check", "check_egress", "click", "close_env", "do", "download", "extract", "fail", "fill", "for_each", "goto", "hover", "open_env", "paginate", "popup", "press", "repeat", "screenshot", "scroll", "select", "set", "sleep", "upload", "wait"}
	for _, k := range want {
		if _, ok := step.Lookup(k); !ok {
			t.Errorf("DESIGN.md kind %q is not registered", k)
		}
	}
	for _, sp := range step.Kinds() {
		if sp.Doc == "" || sp.Example == "" {
			t.Errorf("%s lacks a doc or an example", sp.Kind)
		}
		for _, f := range sp.Fields {
			if f.Doc == "" {
				t.Errorf("%s.%s has no doc", sp.Kind, f.Name)
			}
		}
	}
}
