package run

import (
	"fmt"
	"strings"

	"github.com/toolwright/toolwright/engine/errs"
)

// The screenshot rule. Masking (mask.go) hides fields and text that hold a
// secret, but a page can draw a value where no mask reaches: CSS generated
// content (::after {content: attr(...)}), a canvas, text split by inserted
// spaces. So once a redacted secret was typed into an environment's page,
// a screenshot step, whose file goes to the agent, fails with
// limit_exceeded. A failed call's own screenshot is not refused: it goes
// only to the operator (artifacts_dir, toolwright ui), who holds the
// secrets, and a call that signed in would otherwise keep no picture of its
// failure; it is masked like every screenshot (artifacts.go). A temporary
// environment is forgotten when its call ends; an env: new or given one
// stays marked for as long as this server runs (a replica that did not see
// the secret typed does not know of it).

// noteTyped marks the call's environment when text, a template's value
// about to be used by a step (fill.value is the only place secrets.* may
// appear), holds a redacted secret's value.
func (c *call) noteTyped(text string) {
	if text == "" {
		return
	}
	name := ""
	for n, v := range c.e.cfg.RedactedValues() {
		if v != "" && strings.Contains(text, v) && (name == "" || n < name) {
			name = n
		}
	}
	if name == "" {
		return
	}
	if env := c.currentEnv(); env != nil {
		c.e.typed.Store(env.ID, name)
	}
}

// HoldsSecret implements step.Secrets: text holds a redacted secret's
// value.
func (r *runner) HoldsSecret(text string) bool {
	for _, v := range r.c.e.cfg.RedactedValues() {
		if v != "" && strings.Contains(text, v) {
			return true
		}
	}
	return false
}

// typedInto is the secret typed into the environment's page, or "".
func (e *Engine) typedInto(envID string) string {
	if v, ok := e.typed.Load(envID); ok {
		return v.(string)
	}
	return ""
}

// withheld is why no screenshot of a page is kept after secret name was
// typed into it.
func withheld(name string) string {
	return fmt.Sprintf("secrets.%s was typed into this environment's page; a screenshot could draw it where no mask reaches (CSS generated content, a canvas, split text), so screenshots of it are not kept", name)
}

// screenshotRefused is the screenshot step's error on such a page.
func screenshotRefused(name string) error {
	return errs.New(errs.LimitExceeded, "no screenshot: %s", withheld(name))
}
