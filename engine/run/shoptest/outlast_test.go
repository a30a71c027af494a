package shoptest

import "testing"

// TestAnActionIsAnsweredAfterItsStepsTime: an action that reached the page
// in its step's time and was answered after that time ran out (the page's
// handler waits for its server, as on a busy machine a dialog's answer
// does) was reported done unread. A click whose form the browser then
// refused answered ok; a choice the listbox then took back answered ok
// (found in CI: TestSelectOnlyWhatAPersonCanChoose's role listbox answered
// ok on a loaded machine); with its dialog to be accepted it answered ok
// too, and the page showed the old state (the step had ended, and its
// dialog rule with it: the page's question was dismissed); Enter failed
// target_not_found, retryable, though it had been pressed, and a check
// likewise, ticked or refused alike. The page's answer is now read for a
// while past the step's time: each fails as it does on a quick page, and
// what the page accepts is ok.
func TestAnActionIsAnsweredAfterItsStepsTime(t *testing.T) {
	t.Parallel()
	// slow.html's handlers take 7s; the acting steps have 5s.
	act := func(name, step string) string {
		return `
name: ` + name + `
description: Act on the slow page and read what it shows.
risk: read
params:
  email: {type: string, description: The e-mail field's value, max_length: 40, default: ""}
  state: {type: string, description: The state to choose, max_length: 20, default: Closed}
steps:
  - goto: ${{ config.shop_base }}/slow.html
  - fill: {target: tr.slow.email, value: "${{ params.email }}"}
  - ` + step + `
    timeout: 5s
  - extract: {from: tr.slow.status, into: status}
  - extract: {from: tr.slow.state_out, into: state}
  - extract: {from: tr.slow.boxes, into: boxes}
output:
  status: ${{ vars.status }}
  state: ${{ vars.state }}
  boxes: ${{ vars.boxes }}
`
	}
	h, _ := truthfulHarness(t, map[string]string{
		"slow_click":  act("slow_click", "click: tr.slow.send"),
		"slow_enter":  act("slow_enter", "press: {key: Enter, target: tr.slow.email}"),
		"slow_choose": act("slow_choose", `select: {target: tr.slow.state, value: "${{ params.state }}"}`+"\n    dialog: dismiss"),
		"slow_sure":   act("slow_sure", `select: {target: tr.slow.state, value: "${{ params.state }}"}`+"\n    dialog: accept"),
		"slow_agree":  act("slow_agree", "check: tr.slow.agree"),
		"slow_locked": act("slow_locked", "check: tr.slow.locked"),
	})
	// At once: each call waits for the page, 7 s.
	envs := h.CallAll(
		[2]string{"slow_click", `{"email": "not-an-address"}`},
		[2]string{"slow_enter", `{"email": "not-an-address"}`},
		[2]string{"slow_choose", `{}`},
		[2]string{"slow_sure", `{}`},
		[2]string{"slow_locked", `{}`},
		[2]string{"slow_agree", `{}`},
		[2]string{"slow_click", `{"email": "ann@example.com"}`},
	)
	h.Code(envs[0], "invalid_params", "target tr.slow.send was clicked, but the browser did not send its form: input#slow-email is not valid")
	h.Code(envs[1], "invalid_params", "Enter was pressed in target tr.slow.email, but the browser did not send its form: input#slow-email is not valid")
	h.Code(envs[2], "assertion_failed", `target tr.slow.state did not keep "Closed": the page's own script chose "Open" again`)
	if env := h.OK(envs[3]); env.Data["state"] != "state Closed" {
		t.Errorf("choose Closed, the dialog accepted: the page shows %q, want state Closed", env.Data["state"])
	}
	h.Code(envs[4], "assertion_failed", "target tr.slow.locked did not change to checked: true after clicking it")
	if env := h.OK(envs[5]); env.Data["boxes"] != "agree yes, locked no" {
		t.Errorf("tick agree: the page shows %q, want agree yes, locked no", env.Data["boxes"])
	}
	if env := h.OK(envs[6]); env.Data["status"] != "sent ann@example.com" {
		t.Errorf("send a valid address: the page shows %q, want sent ann@example.com", env.Data["status"])
	}
}
