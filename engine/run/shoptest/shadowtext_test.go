package shoptest

import (
	"strings"
	"testing"
)

// TestWaitSeesOnlyShownShadowText: a wait for a text counted every text in
// a component's shadow tree, shown or not, so a status component holding
// all its messages ("Saved" hidden until the save is done) satisfied
// wait {text: Saved} at once, before anything was saved. Now only the
// text the page shows counts, in shadow trees as in the document.
func TestWaitSeesOnlyShownShadowText(t *testing.T) {
	t.Parallel()
	h, _ := truthfulHarness(t, map[string]string{
		"saved": `
name: saved
description: Optionally click Save, then wait for a text.
risk: read
params:
  click: {type: integer, description: 1 to click Save first, min: 0, max: 1, default: 0}
  text: {type: string, description: The text to wait for, max_length: 40, required: true}
steps:
  - goto: ${{ config.shop_base }}/shadowtext.html
  - click: tr.shadow.save
    if: params.click == 1
  - wait: {text: "${{ params.text }}"}
    timeout: 1500ms
`,
	})
	for _, text := range []string{"Saved", "Deleted"} {
		env := h.Call("saved", `{"text": "`+text+`"}`)
		if env.OK || env.Code != "target_not_found" || !strings.Contains(env.Message, `text "`+text+`" did not appear`) {
			t.Errorf("wait for %q, hidden in the component: %s, want target_not_found: did not appear", text, env.JSON())
		}
	}
	h.OK(h.Call("saved", `{"text": "Nothing changed yet"}`))
	h.OK(h.Call("saved", `{"click": 1, "text": "Saved"}`))
}
