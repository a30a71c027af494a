package workflow_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/workflow"
)

// A session: save without purposes is refused at load, at the session
// value's line and column: before, it loaded, and the sign-in it saved was
// restored into every environment of no purpose, so every tool naming none
// acted as whoever signed in.
func TestSessionSaveNeedsPurposes(t *testing.T) {
	cfg := testConfig(t)
	sel, _ := selector.Load(cfg.Selectors)
	const steps = "steps:\n  - set: {x: 1}\n"
	for _, tc := range []struct{ name, head, want string }{
		{"no_purposes", "session: save\n", ":4:10: session: save needs purposes (such as purposes: [shop])"},
		{"temporary", "env: temporary\nsession: save\n", ":5:10: session: save needs purposes"},
		{"given", "env: given\nsession:   save\n", ":5:12: session: save needs purposes"},
		{"empty_list", "purposes: []\nsession: save\n", ":5:10: session: save needs purposes"},
		{"env_new", "env: new\nsession: save\n", ":5:10: session: save needs purposes, which an env: new workflow cannot have"},
		{"with_purpose", "purposes: [shop]\nsession: save\n", ""},
		{"given_purposes", "env: given\npurposes: [shop, admin]\nsession: save\n", ""},
		{"no_session", "env: temporary\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), tc.name+".yaml")
			src := "name: " + tc.name + "\ndescription: Sign in.\nrisk: read\n" + tc.head + steps
			if tc.name == "env_new" {
				src = "name: env_new\ndescription: Sign in.\nrisk: read\nenv: new\nsession: save\nsteps:\n  - open_env: {purpose: shop}\noutput:\n  env_id: ${{ env.id }}\n"
			}
			writeTestFile(t, file, src)
			_, ps := workflow.Build(cfg, sel, []string{file})
			got := ""
			for _, p := range ps {
				if strings.Contains(p.String(), "session") {
					got = p.String()
				}
			}
			switch {
			case tc.want == "" && got != "":
				t.Errorf("refused: %s", got)
			case tc.want != "" && !strings.Contains(got, file+tc.want):
				t.Errorf("got %q, want %q (all: %v)", got, file+tc.want, ps.Err())
			}
		})
	}
}
