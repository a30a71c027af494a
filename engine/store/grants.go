package store

import (
	"errors"
	"fmt"
	"regexp"
	"time"
	"unicode"
	"unicode/utf8"
)

// TaskIDPattern is the form of a task_id, the idempotency key a call carries
// and a grant names. It is part of the contract (every tool's input schema
// uses it), so a grant for a task_id no call can carry (such as "*") is
// refused.
const TaskIDPattern = `^[A-Za-z0-9._:-]{1,128}$`

var taskIDRe = regexp.MustCompile(TaskIDPattern)

// MaxGrantReason bounds a grant's reason, in characters: it is kept in the
// audit trail and printed by `toolwright grants`.
const MaxGrantReason = 500

// Grant lets one write or destructive tool run for one task_id until it
// expires or is revoked. Grants are made by operators through the CLI, never
// by a tool.
type Grant struct {
	ID      string    `json:"id"`
	Tool    string    `json:"tool"`
	TaskID  string    `json:"task_id"`
	Reason  string    `json:"reason"`
	By      string    `json:"by,omitempty"`
	Created time.Time `json:"created"`
	Expires time.Time `json:"expires"`
	Revoked bool      `json:"revoked"`
}

// Live reports whether g allows calls at now.
func (g *Grant) Live(now time.Time) bool { return !g.Revoked && now.Before(g.Expires) }

// CheckGrant validates AddGrant's arguments (after trimming spaces).
func CheckGrant(tool, taskID string, ttl time.Duration, reason string) error {
	switch {
	case tool == "":
		return errors.New("a grant needs a tool")
	case taskID == "":
		return errors.New("a grant needs a task_id")
	case !taskIDRe.MatchString(taskID):
		return fmt.Errorf("a grant's task_id must be what a call can carry: 1 to 128 letters, digits or . _ : - (%s), got %q", TaskIDPattern, clip(taskID, 40))
	case reason == "":
		return errors.New("a grant needs a reason")
	case utf8.RuneCountInString(reason) > MaxGrantReason:
		return fmt.Errorf("a grant's reason must be at most %d characters, got %d", MaxGrantReason, utf8.RuneCountInString(reason))
	case !utf8.ValidString(reason) || hasControl(reason):
		return errors.New("a grant's reason must be printable text on one line (no control characters)")
	case ttl <= 0:
		return fmt.Errorf("grant ttl must be more than 0, got %s", ttl)
	case ttl > MaxGrantTTL:
		return fmt.Errorf("grant ttl must be at most %s, got %s", MaxGrantTTL, ttl)
	}
	return nil
}

// clip shortens s to at most n characters for a message.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "..."
}

func hasControl(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) {
			return true
		}
	}
	return false
}
