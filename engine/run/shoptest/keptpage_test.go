package shoptest

import (
	"fmt"
	"testing"
)

// TestKeptPageSeesRequests: a page kept for later calls (env: given) has
// its requests followed in every call, not only in the first. A click
// whose handler first posts with fetch, then navigates (note.html's quick
// save), is waited for before the next step reads, in the second and
// third calls on the page as in one that opened it. Before, the first
// call's end disabled the page's Network domain behind rod's back (a
// request sent on a cancelled context), later calls saw no request, the
// read ran on the old page ("Edit note") and the call answered ok before
// the save was made.
func TestKeptPageSeesRequests(t *testing.T) {
	t.Parallel()
	h, srv := truthfulHarness(t, map[string]string{
		"open_notes": `
name: open_notes
description: Open an environment on the note page, kept for later calls.
risk: read
env: new
steps:
  - open_env: {purpose: notes}
  - goto: ${{ config.shop_base }}/note.html
output:
  env_id: ${{ env.id }}
`,
		"quick_save_kept": `
name: quick_save_kept
description: Quick-save a note in a kept environment, then read the page the save leads to.
risk: write
env: given
params:
  note: {type: string, description: the note, required: true}
steps:
  - goto: ${{ config.shop_base }}/note.html?post=600
  - fill: {target: tr.note.text, value: "${{ params.note }}"}
  - click: tr.note.quick_save
  - extract: {from: tr.heading, into: heading}
output:
  heading: ${{ vars.heading }}
`})
	opened := h.OK(h.Call("open_notes", `{}`))
	id, _ := opened.Data["env_id"].(string)
	if id == "" {
		t.Fatalf("no env_id: %+v", opened.Data)
	}
	for n := 1; n <= 3; n++ {
		note := fmt.Sprintf("kept note %d", n)
		env := h.OK(h.Call("quick_save_kept", fmt.Sprintf(`{"task_id": "k%d", "env_id": %q, "note": %q}`, n, id, note)))
		if got := env.Data["heading"]; got != "Saved" {
			t.Errorf("call %d on the kept page: the step after the click read heading %v, want Saved", n, got)
		}
		if saved := srv.notes(); len(saved) == 0 || saved[len(saved)-1] != note {
			t.Errorf("call %d on the kept page: saved %q, want %q last", n, saved, note)
		}
	}
}
