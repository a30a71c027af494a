package shoptest

import (
	"testing"

	"github.com/toolwright/toolwright/internal/harness"
)

// TestAWaitSeesWhatAPersonSees: a notice the page keeps in its layout but
// transparent (opacity 0, as Bootstrap's .fade) until the save is done was
// "visible" to a wait at once, so the call read the page before the save
// and answered ok with "not saved"; the same with the notice inside a
// transparent wrapper; and a spinner that turns transparent in its place
// was never "hidden", so the wait for it ran out though the rows were in.
// A wait (and an assert) now counts only what a person sees: visible and
// not transparent, for a target found by role too.
// Reading and acting are unchanged (a transparent element is still there).
func TestAWaitSeesWhatAPersonSees(t *testing.T) {
	t.Parallel()
	// saveThenRead saves, waits for the notice target shows, and reads the
	// state.
	saveThenRead := func(name, notice string) string {
		return `
name: ` + name + `
description: Save, wait for the notice, read the state.
risk: write
steps:
  - goto: ${{ config.shop_base }}/shown.html
  - click: tr.shown.save
  - wait: {visible: ` + notice + `}
  - extract: {from: tr.shown.state, into: state}
output:
  state: ${{ vars.state }}
`
	}
	h, _ := truthfulHarness(t, map[string]string{
		"save":         saveThenRead("save", "tr.shown.saved"),
		"save_by_role": saveThenRead("save_by_role", "tr.shown.saved_by_role"),
		"publish": `
name: publish
description: Publish, wait for the toast, read the state.
risk: write
steps:
  - goto: ${{ config.shop_base }}/shown.html
  - click: tr.shown.publish
  - wait: {count: tr.shown.toast, at_least: 1}
  - extract: {from: tr.shown.published, into: state}
  - extract: {from: tr.shown.toast, into: toast}
output:
  state: ${{ vars.state }}
  toast: ${{ vars.toast }}
`,
		"banner": `
name: banner
description: Reveal the banner and wait for it.
risk: read
steps:
  - goto: ${{ config.shop_base }}/shown.html
  - click: tr.shown.reveal
  - wait: {visible: tr.shown.banner}
    timeout: 5s
  - extract: {from: tr.shown.banner, into: banner}
output:
  banner: ${{ vars.banner }}
`,
		"tip": `
name: tip
description: Assert that the tip shows.
risk: read
steps:
  - goto: ${{ config.shop_base }}/shown.html
  - assert: {visible: tr.shown.tip}
`,
		"load": `
name: load
description: Load the rows, wait for the spinner to go, read them.
risk: read
steps:
  - goto: ${{ config.shop_base }}/shown.html
  - wait: {hidden: tr.shown.spinner}
    timeout: 5s
  - click: tr.shown.load
  - wait: {hidden: tr.shown.spinner}
    timeout: 5s
  - extract: {from: tr.shown.rows, list: true, into: rows}
output:
  rows: ${{ vars.rows }}
`,
	})
	envs := h.CallAll([2]string{"save", `{"task_id": "t-save"}`}, [2]string{"publish", `{"task_id": "t-publish"}`}, [2]string{"load", `{}`},
		[2]string{"tip", `{}`}, [2]string{"banner", `{}`}, [2]string{"save_by_role", `{"task_id": "t-role"}`})
	if env := h.OK(envs[0]); env.Data["state"] != "saved" {
		t.Errorf("save: read before the notice showed: %s", env.JSON())
	}
	if env := h.OK(envs[1]); env.Data["state"] != "published" || env.Data["toast"] != "Published" {
		t.Errorf("publish: read before the toast showed: %s", env.JSON())
	}
	if env := h.OK(envs[2]); harness.List(t, env, "rows").Count != 5 {
		t.Errorf("load: rows: %s", env.JSON())
	}
	// An assert looks as a wait does: a tip kept transparent is not shown.
	h.Code(envs[3], "assertion_failed", "target tr.shown.tip is not visible")
	// A banner whose fade-in is under way is shown, though the fade holds
	// it at opacity 0 (as a page the browser draws no frame of does).
	if env := h.OK(envs[4]); env.Data["banner"] != "New: dark mode" {
		t.Errorf("banner: %s", env.JSON())
	}
	// A target found by role is looked at from Go (the accessibility
	// tree), by the same rule.
	if env := h.OK(envs[5]); env.Data["state"] != "saved" {
		t.Errorf("save, the notice found by role: read before it showed: %s", env.JSON())
	}
}
