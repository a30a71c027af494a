package store

import (
	"errors"
	"fmt"
	"time"
)

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
	case reason == "":
		return errors.New("a grant needs a reason")
	case ttl <= 0:
		return fmt.Errorf("grant ttl must be more than 0, got %s", ttl)
	case ttl > MaxGrantTTL:
		return fmt.Errorf("grant ttl must be at most %s, got %s", MaxGrantTTL, ttl)
	}
	return nil
}
