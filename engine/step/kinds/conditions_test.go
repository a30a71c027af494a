package kinds

import (
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/step"
)

// TestConditionsDeclaredOnce: every condition field two kinds share is the
// one declaration of conditions.go: the same type, and the same words
// after the kind's verb.
func TestConditionsDeclaredOnce(t *testing.T) {
	verbs := map[string]string{"wait": "wait until ", "assert": ""}
	for _, c := range pageConds {
		for kind, verb := range verbs {
			spec, ok := step.Lookup(kind)
			if !ok {
				t.Fatalf("no kind %s", kind)
			}
			f, ok := spec.Field(c.Name)
			if !ok {
				continue
			}
			want := c.Doc
			if c.Name != "at_least" {
				want = verb + c.Doc
			}
			if f.Type != c.Type || !strings.HasPrefix(f.Doc, want) {
				t.Errorf("%s.%s: %s %q, want %s %q (conditions.go)", kind, c.Name, f.Type, f.Doc, c.Type, want)
			}
		}
	}
	for _, shared := range []string{"visible", "text", "url"} {
		for kind := range verbs {
			spec, _ := step.Lookup(kind)
			if _, ok := spec.Field(shared); !ok {
				t.Errorf("%s has no condition %s", kind, shared)
			}
		}
	}
}
