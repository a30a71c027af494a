package shoptest

import (
	"fmt"
	"testing"
)

// TestUploadOnlyWhatAPersonCould: upload put files into a disabled file
// input (itself, or by its fieldset), which no person's file chooser can
// reach, and the page saw them: ok. A page whose own script refused the
// files (only PDF files: it said so and emptied the input) answered ok
// too, and nothing was attached. Now the disabled inputs are waited for
// and fail "stayed disabled" (one enabled meanwhile takes the file), and
// the refused files fail invalid_params with what the page said.
func TestUploadOnlyWhatAPersonCould(t *testing.T) {
	t.Parallel()
	h, _ := truthfulHarness(t, map[string]string{"attach": `
name: attach
description: Put a file into a file input of the upload page and read what the page says.
risk: write
params:
  target: {type: target, prefix: tr.up., description: The file input}
  enable: {type: integer, description: ms after load the disabled input is enabled (0 never), min: 0, max: 5000, default: 0}
steps:
  - goto: "${{ config.shop_base }}/upload.html?enable=${{ params.enable }}"
  - upload: {target: "${{ params.target }}", files: [exemption.txt]}
    timeout: 4s
  - extract: {from: tr.up.status, into: status}
output:
  status: ${{ vars.status }}
`})
	attach := func(target string, enable int) string {
		return fmt.Sprintf(`{"target": "tr.up.%s", "enable": %d, "task_id": "up-%s-%d"}`, target, enable, target, enable)
	}
	if env := h.Code(h.Call("attach", attach("pdf", 0)), "invalid_params",
		"target tr.up.pdf kept none of the files put into it (exemption.txt): the page's own script refused them",
		`alert "Only PDF files, please: exemption.txt is not one." accepted`); env.Retryable {
		t.Errorf("refused files: %s, want not retryable", env.JSON())
	}
	// Both wait out their step's time: at once.
	for i, env := range h.CallAll([2]string{"attach", attach("off", 0)}, [2]string{"attach", attach("locked", 0)}) {
		h.Code(env, "target_not_found", "target tr.up."+[]string{"off", "locked"}[i]+" stayed disabled")
	}
	for _, c := range []struct {
		target string
		enable int
		status string
	}{
		{"any", 0, "any exemption.txt"},
		{"off", 300, "off exemption.txt"},
	} {
		if env := h.OK(h.Call("attach", attach(c.target, c.enable))); env.Data["status"] != c.status {
			t.Errorf("upload into %s: the page shows %q, want %q", c.target, env.Data["status"], c.status)
		}
	}
}
