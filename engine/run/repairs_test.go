package run_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/internal/harness"
	"github.com/toolwright/toolwright/internal/testsite"
)

// repairSite is testdata/repair (release 1 and 2 of one page) with its
// selector map, written for release 1.
var repairSite = harness.Fixture{
	Start:     func(tb testing.TB) *testsite.Site { return testsite.StartDir(tb, "repair") },
	Selectors: "testdata/repair/selectors.yaml",
	Workflows: "testdata/repair/workflows-none",
}

const typeEmail = `name: type_email
description: Type an email address into the sign-in form of a release of the page.
risk: read
params:
  release: {type: string, description: v1 or v2, pattern: "^v[12]$", max_length: 2, required: true}
steps:
  - goto: ${{ config.shop_base }}/${{ params.release }}.html
  - fill: {target: acct.email, value: "someone-typed@example.com"}
    timeout: 1s
`

// TestRepairInTheTraceNotTheEnvelope: a call on release 1 keeps the
// fingerprint of the field it fills (without what it typed); on release
// 2, where the field's id was renamed, the call fails target_not_found as
// before, its failed step's record in the trace holds the repair proposal
// (#login-email, with why: name, label, placeholder agreed), and the
// envelope the agent gets says nothing of it.
func TestRepairInTheTraceNotTheEnvelope(t *testing.T) {
	t.Parallel()
	h := harness.NewColdOn(t, repairSite, map[string]string{"type_email": typeEmail}, nil)
	h.BrowserUp()
	h.OK(h.Call("type_email", `{"release": "v1"}`))
	fp, err := h.St.GetFingerprint(context.Background(), "acct.email")
	if err != nil {
		t.Fatalf("no fingerprint kept for acct.email: %v", err)
	}
	if s := string(fp.Data); !strings.Contains(s, `"label":"Email"`) || strings.Contains(s, "someone-typed") || fp.Page != "/v1.html" {
		t.Errorf("the fingerprint of acct.email on %s: %s", fp.Page, s)
	}
	env := h.Code(h.Call("type_email", `{"release": "v2"}`), "target_not_found", "acct.email")
	for _, leak := range []string{"login-email", "repair", "propos", "fingerprint"} {
		if strings.Contains(strings.ToLower(string(env.JSON())), leak) {
			t.Errorf("the envelope mentions %q: %s", leak, env.JSON())
		}
	}
	tr := h.Trace(env)
	var failed *store.StepRecord
	for i := range tr.Steps {
		if tr.Steps[i].Code == "target_not_found" {
			failed = &tr.Steps[i]
		}
	}
	if failed == nil || failed.Repair == nil {
		t.Fatalf("no repair in the failed step's record: %+v", tr.Steps)
	}
	rp := failed.Repair
	if rp.Status != "proposed" || len(rp.Locators) == 0 || rp.Locators[0] != `css "#login-email"` ||
		!strings.Contains(rp.YAML, "acct.email:") || !strings.Contains(rp.Message, "name, label, placeholder") {
		t.Errorf("the repair in the trace: %+v", rp)
	}
	if strings.Contains(string(tr.Envelope), "login-email") {
		t.Errorf("the envelope kept in the trace mentions the repair: %s", tr.Envelope)
	}
	t.Logf("the repair took %d ms: %s", rp.DurationMS, rp.Message)
}

// useWorkflows read and act on testdata/repair's targets, each on the
// release a parameter names.
var useWorkflows = map[string]string{
	// read_all resolves every target read here on release 1, so each
	// leaves its fingerprint.
	"read_all": `name: read_all
description: Read the targets of a release of the account page.
risk: read
params:
  release: {type: string, description: v1 or v2, pattern: "^v[12]$", max_length: 2, required: true}
steps:
  - goto: ${{ config.shop_base }}/${{ params.release }}.html
  - extract: {from: acct.email, attr: id, into: email}
  - extract: {from: acct.signin, into: signin}
  - extract: {from: acct.add_to_cart, into: add}
  - extract: {from: acct.delete_account, into: del}
output: {email: "${{ vars.email }}"}
`,
	"read_email": `name: read_email
description: Wait for the email field of a release, then read its id and placeholder.
risk: read
params:
  release: {type: string, description: v1 or v2, pattern: "^v[12]$", max_length: 2, required: true}
steps:
  - goto: ${{ config.shop_base }}/${{ params.release }}.html
  - wait: {visible: acct.email}
    timeout: 1s
  - extract: {from: acct.email, attr: id, into: id}
    timeout: 1s
  - extract: {from: acct.email, attr: placeholder, into: placeholder}
    timeout: 1s
output: {id: "${{ vars.id }}", placeholder: "${{ vars.placeholder }}"}
`,
	"read_add": `name: read_add
description: Read the add to cart button's words on a release.
risk: read
params:
  release: {type: string, description: v1 or v2, pattern: "^v[12]$", max_length: 2, required: true}
steps:
  - goto: ${{ config.shop_base }}/${{ params.release }}.html
  - extract: {from: acct.add_to_cart, into: add}
    timeout: 1s
output: {add: "${{ vars.add }}"}
`,
	"read_delete": `name: read_delete
description: Read the delete account button's words on a release.
risk: read
params:
  release: {type: string, description: v1 or v2, pattern: "^v[12]$", max_length: 2, required: true}
steps:
  - goto: ${{ config.shop_base }}/${{ params.release }}.html
  - extract: {from: acct.delete_account, into: del}
    timeout: 1s
output: {del: "${{ vars.del }}"}
`,
	// sign_in is a write tool: its wait only looks, but no step of a write
	// tool goes on with an unreviewed repair.
	"sign_in": `name: sign_in
description: Sign in on a release of the page.
risk: write
params:
  release: {type: string, description: v1 or v2, pattern: "^v[12]$", max_length: 2, required: true}
steps:
  - goto: ${{ config.shop_base }}/${{ params.release }}.html
  - wait: {visible: acct.signin}
    timeout: 1s
  - click: acct.signin
    timeout: 1s
`,
	// press_signin is a read tool whose step acts (a click): it never
	// acts on an unreviewed repair either.
	"press_signin": `name: press_signin
description: Press the sign-in button of a release (a read tool; the button declares no effect).
risk: read
params:
  release: {type: string, description: v1 or v2, pattern: "^v[12]$", max_length: 2, required: true}
steps:
  - goto: ${{ config.shop_base }}/${{ params.release }}.html
  - click: acct.signin
    timeout: 1s
`,
}

// TestRepairUse: with repair: use, on release 2 of the page, where the
// email field's id was renamed, a read tool's wait and extracts go on
// with the proposal (the same element: its id is now login-email) and the
// envelope says healed: [acct.email], the trace marks the repair used;
// the later steps on the target use it at once (no second timeout). Two
// like "Add to cart" buttons are no proposal (ambiguous, said so) and
// nothing is healed; "Delete account", gone, is never healed as "Delete
// all posts". A write tool's wait, and a read tool's click, never go on
// with the unreviewed repair: they fail target_not_found as with
// repair: propose. Under propose (the default) the read fails as before.
func TestRepairUse(t *testing.T) {
	t.Parallel()
	h := harness.NewColdOn(t, repairSite, useWorkflows, func(c *config.Config) { c.Repair = config.RepairUse })
	h.BrowserUp()
	h.OK(h.Call("read_all", `{"release": "v1"}`))

	env := h.OK(h.Call("read_email", `{"release": "v2"}`))
	if env.Data["id"] != "login-email" || env.Data["placeholder"] != "you@example.com" {
		t.Errorf("read_email on v2 read %v, want login-email's id and placeholder", env.Data)
	}
	if !slices.Equal(env.Healed, []string{"acct.email"}) || !strings.Contains(string(env.JSON()), `"healed":["acct.email"]`) {
		t.Errorf("healed: %v (%s), want [acct.email]", env.Healed, env.JSON())
	}
	tr := h.Trace(env)
	var used, failed int
	for _, s := range tr.Steps {
		if s.Target != "acct.email" {
			continue
		}
		if s.Code == "target_not_found" {
			failed++
		}
		if s.Code == "ok" && (s.Repair == nil || !s.Repair.Used) {
			t.Errorf("step %s (%s) ok without the used repair marked: %+v", s.Path, s.Kind, s.Repair)
		}
		if s.Repair != nil && s.Repair.Used {
			used++
		}
	}
	if failed != 1 || used != 3 {
		t.Errorf("acct.email: %d attempts failed (want 1: the wait, before the repair), %d steps used it (want 3): %+v", failed, used, tr.Steps)
	}
	if !strings.Contains(string(tr.Envelope), `"healed":["acct.email"]`) {
		t.Errorf("the trace's envelope: %s", tr.Envelope)
	}

	env = h.Code(h.Call("read_add", `{"release": "v2"}`), "target_not_found", "acct.add_to_cart")
	if rp := failedRepair(t, h, env); env.Healed != nil || rp.Status != "ambiguous" || rp.Used || !strings.Contains(rp.Message, "ambiguous: 2 candidates") {
		t.Errorf("read_add: healed %v, repair %+v", env.Healed, rp)
	}
	env = h.Code(h.Call("read_delete", `{"release": "v2"}`), "target_not_found", "acct.delete_account")
	if rp := failedRepair(t, h, env); env.Healed != nil || rp.Status != "none" || rp.Used || strings.Contains(string(env.JSON()), "Delete all posts") {
		t.Errorf("read_delete: healed %v, repair %+v, %s", env.Healed, rp, env.JSON())
	}
	for _, tool := range []string{"sign_in", "press_signin"} {
		env = h.Code(h.Call(tool, `{"release": "v2", "task_id": "T-`+tool+`"}`), "target_not_found", "acct.signin")
		rp := failedRepair(t, h, env)
		if env.Healed != nil || rp.Status != "proposed" || rp.Used || rp.Locators[0] != `css "#login-submit"` {
			t.Errorf("%s: healed %v, repair %+v: a proposal was there, and must not be used", tool, env.Healed, rp)
		}
	}
}

// TestRepairProposeOnly: under repair: propose (the default) the read
// whose target was renamed fails as before, the proposal only in its trace.
func TestRepairProposeOnly(t *testing.T) {
	t.Parallel()
	h := harness.NewColdOn(t, repairSite, useWorkflows, nil)
	h.BrowserUp()
	h.OK(h.Call("read_all", `{"release": "v1"}`))
	env := h.Code(h.Call("read_email", `{"release": "v2"}`), "target_not_found", "acct.email")
	if rp := failedRepair(t, h, env); env.Healed != nil || rp.Status != "proposed" || rp.Used {
		t.Errorf("healed %v, repair %+v", env.Healed, rp)
	}
}

// failedRepair is the repair in the record of env's failed step.
func failedRepair(t *testing.T, h *harness.Harness, env *result.Envelope) *store.Repair {
	t.Helper()
	tr := h.Trace(env)
	for i := len(tr.Steps) - 1; i >= 0; i-- {
		if tr.Steps[i].Code == "target_not_found" && tr.Steps[i].Repair != nil {
			return tr.Steps[i].Repair
		}
	}
	t.Fatalf("no repair in the failed steps of %s: %+v", env.JSON(), tr.Steps)
	return nil
}
