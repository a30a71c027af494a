package repair_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolwright/toolwright/engine/repair"
	"github.com/toolwright/toolwright/engine/selector"
)

const mapBefore = `# The account pages' targets.
# Kept by the web team.

acct.email:   # the sign-in email
  description: Email field on the sign-in form
  # the id the first release gave it
  css: "#email"
  fallbacks:
    - label: Email   # the label reads Email
  effect: read

# The password, after the email.
acct.password:
  css: "#password"

acct.signin: {css: "#signin"}
`

// TestApplyKeepsComments: applying a proposal to acct.email makes its
// locators the primary and first fallbacks, keeps the old primary (with
// its comment) and the old fallback after them, and leaves every other
// line of the file as it was, comments and blank lines included.
func TestApplyKeepsComments(t *testing.T) {
	t.Parallel()
	locs := []selector.Locator{
		{Strategy: selector.CSS, Value: "#login-email"},
		{Strategy: selector.Label, Value: "Email"},
		{Strategy: selector.Role, Value: "textbox", Name: "Email"},
	}
	out, err := repair.Apply([]byte(mapBefore), "acct.email", locs)
	if err != nil {
		t.Fatal(err)
	}
	want := `# The account pages' targets.
# Kept by the web team.

acct.email: # the sign-in email
  description: Email field on the sign-in form
  css: '#login-email'
  fallbacks:
    - label: Email # the label reads Email
    - role: textbox
      name: Email
    - # the id the first release gave it
      css: "#email"
  effect: read

# The password, after the email.
acct.password:
  css: "#password"

acct.signin: {css: "#signin"}
`
	if d := cmp.Diff(want, string(out)); d != "" {
		t.Errorf("the map after apply (-want +got):\n%s", d)
	}
	m, ps := selector.Parse("selectors.yaml", out)
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	var got []string
	for _, l := range m.Targets["acct.email"].Locators {
		got = append(got, l.Describe())
	}
	if d := cmp.Diff([]string{`css "#login-email"`, `label "Email"`, `role "textbox" name "Email"`, `css "#email"`}, got); d != "" {
		t.Errorf("acct.email's locators (-want +got):\n%s", d)
	}
	// A flow-style entry, the last of the file, is rewritten in block form.
	out, err = repair.Apply(out, "acct.signin", locs[:1])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(out), "acct.signin:\n  css: '#login-email'\n  fallbacks:\n    - css: \"#signin\"\n") || !strings.Contains(string(out), "# The password, after the email.\nacct.password:\n") {
		t.Errorf("after applying to acct.signin:\n%s", out)
	}
	if _, err := repair.Apply(out, "acct.nope", locs); err == nil || !strings.Contains(err.Error(), "not in the selector map") {
		t.Errorf("an unknown target: %v", err)
	}
}
