package shoptest

import "testing"

// TestSelectOnlyWhatAPersonCanChoose: select chose a native option a person
// cannot (a disabled option, one of a disabled group, a hidden one: the
// script set the select's value all the same) and clicked an ARIA option
// marked aria-disabled, whose click the widget ignores, and answered ok
// both times. Such an option now fails invalid_params naming the options
// that can be chosen, and nothing changes on the page; the others are
// chosen as before, whichever way the control is found.
//
// A native select whose page took the choice back (a change it confirms,
// the confirm dismissed) answered ok too: it fails assertion_failed now,
// naming what the page chose instead, and what the page's dialog asked.
func TestSelectOnlyWhatAPersonCanChoose(t *testing.T) {
	t.Parallel()
	workflow := func(name, dialog string) string {
		return `
name: ` + name + `
description: Choose an option of a control on the choose page and read what the page shows.
risk: read
params:
  control: {type: target, prefix: tr.choose., description: The control}
  value: {type: string, description: The option, max_length: 100}
steps:
  - goto: ${{ config.shop_base }}/choose.html
  - select: {target: "${{ params.control }}", value: "${{ params.value }}"}
    timeout: 10s
    dialog: ` + dialog + `
  - extract: {from: tr.choose.size_out, into: size}
  - extract: {from: tr.choose.country_out, into: country}
  - extract: {from: tr.choose.plan_out, into: plan}
  - extract: {from: tr.choose.role_out, into: role}
output:
  size: ${{ vars.size }}
  country: ${{ vars.country }}
  plan: ${{ vars.plan }}
  role: ${{ vars.role }}
`
	}
	h, _ := truthfulHarness(t, map[string]string{"choose": workflow("choose", "dismiss"), "choose_sure": workflow("choose_sure", "accept")})
	args := func(control, value string) string {
		return `{"control": "tr.choose.` + control + `", "value": "` + value + `"}`
	}
	for _, c := range []struct{ control, value, msg string }{
		{"size", "Medium", `target tr.choose.size's option "Medium" is disabled: a person cannot choose it (options that can be chosen: Small, Large)`},
		{"size", "xl", `option "xl" is disabled`},
		{"size", "Staff only", `option "Staff only" is hidden`},
		{"size_by_role", "m", `option "m" is disabled`},
		{"country", "Atlantis", `target tr.choose.country's option "Atlantis" is disabled: a person cannot choose it`},
	} {
		if env := h.Code(h.Call("choose", args(c.control, c.value)), "invalid_params", c.msg); env.Retryable || env.NeedsHuman {
			t.Errorf("choose %s of %s: %s, want neither retryable nor needs_human", c.value, c.control, env.JSON())
		}
	}
	for _, c := range []struct{ control, value, key, want string }{
		{"size", "Large", "size", "size l"},
		{"size_by_role", "s", "size", "size s"},
		{"country", "France", "country", "chose FR"},
	} {
		if env := h.OK(h.Call("choose", args(c.control, c.value))); env.Data[c.key] != c.want {
			t.Errorf("choose %s of %s: the page shows %q, want %q", c.value, c.control, env.Data[c.key], c.want)
		}
	}
	// A choice the page's own script took back (its confirm dismissed)
	// did not happen; accepted, it did.
	h.Code(h.Call("choose", args("plan", "Pro")), "assertion_failed",
		`target tr.choose.plan did not keep "Pro": the page's own script chose "Basic" again (a dialog it asked, dismissed? answer it with dialog: accept)`)
	if env := h.OK(h.Call("choose_sure", args("plan", "Pro"))); env.Data["plan"] != "plan pro" {
		t.Errorf("choose Pro of plan with its dialog accepted: the page shows %q, want plan pro", env.Data["plan"])
	}
	// The same in an ARIA listbox that marks its choice (aria-selected).
	h.Code(h.Call("choose", args("role", "Admin")), "assertion_failed",
		`target tr.choose.role did not keep "Admin": the page's own script chose "Viewer" again (a dialog it asked, dismissed? answer it with dialog: accept)`,
		`(the page's dialogs while the step ran: confirm "Make this user Admin?" dismissed as the step's dialog key says)`)
	if env := h.OK(h.Call("choose_sure", args("role", "Admin"))); env.Data["role"] != "role Admin" {
		t.Errorf("choose Admin of role with its dialog accepted: the page shows %q, want role Admin", env.Data["role"])
	}
}
