package policy

import (
	"context"
	"time"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/errs"
)

// Risk levels of a workflow (DESIGN.md "Permissions").
const (
	RiskRead        = "read"
	RiskWrite       = "write"
	RiskDestructive = "destructive"
)

// Risks is every risk level, in order: the one list (a workflow's risk:
// is declared with it).
var Risks = []string{RiskRead, RiskWrite, RiskDestructive}

// WriteMode is policy.write_tools: how write and destructive tools are let
// through.
type WriteMode string

// The write modes, as the config declares them (config.WriteModes, the
// one list).
const (
	// WriteGrant (the default) needs a live grant for the tool and the
	// call's task_id.
	WriteGrant WriteMode = config.WriteGrant
	// WriteEnabled lets every write call through (for development).
	WriteEnabled WriteMode = config.WriteEnabled
	// WriteDisabled refuses every write call.
	WriteDisabled WriteMode = config.WriteDisabled
)

// GrantSource finds the live grant for a tool and task_id, returning its id
// or "" when there is none. The store satisfies it (store.Grants.LiveGrantID);
// it must read its source every time, so grants made while the server runs
// count at once.
type GrantSource interface {
	LiveGrantID(ctx context.Context, tool, taskID string, now time.Time) (string, error)
}

// DecideWith says whether a call of tool (of the given risk) with taskID may run,
// and under which grant (the id goes into the audit record; "" when no grant
// was needed).
//
//   - read tools always run;
//   - write and destructive tools (an empty or unknown risk counts as write)
//     need a task_id in every mode;
//   - WriteEnabled lets them run, WriteDisabled refuses them;
//   - WriteGrant (and an empty mode) needs a live grant from grants for this
//     tool and task_id, and says the exact command that makes one.
//
// Refusals are *errs.Error with code not_granted (needs_human); a failing
// GrantSource gives internal. grantCmd is the command an operator runs to
// make a grant for this server ("toolwright --config FILE grant",
// "toolwright grant --demo"; "" is "toolwright grant"), printed in the
// not_granted message.
func DecideWith(ctx context.Context, mode WriteMode, risk, tool, taskID string, grants GrantSource, grantCmd string) (string, error) {
	if grantCmd == "" {
		grantCmd = "toolwright grant"
	}
	if risk == RiskRead {
		return "", nil
	}
	if risk != RiskDestructive {
		risk = RiskWrite
	}
	if mode == WriteDisabled {
		return "", errs.New(errs.NotGranted, "tool %q is a %s tool and write tools are disabled by policy.write_tools", tool, risk)
	}
	if taskID == "" {
		return "", errs.New(errs.NotGranted, "tool %q is a %s tool and needs a task_id; call it again with a task_id an operator can grant", tool, risk)
	}
	if mode == WriteEnabled {
		return "", nil
	}
	if grants == nil {
		return "", errs.New(errs.Internal, "no grant source is configured")
	}
	id, err := grants.LiveGrantID(ctx, tool, taskID, time.Now())
	if err != nil {
		if c := errs.CodeOf(err); c == errs.StoreBusy || c == errs.StoreUnavailable {
			return "", err // the store's own answer (locked, lost): retryable
		}
		return "", errs.Wrap(errs.Internal, err, "could not look up grants for tool %q", tool)
	}
	if id == "" {
		return "", errs.New(errs.NotGranted,
			"tool %q is a %s tool and has no live grant for task_id %q; an operator can allow it with: %s --tool %s --task %s --ttl 15m --reason \"...\"",
			tool, risk, taskID, grantCmd, config.ShellWord(tool), config.ShellWord(taskID))
	}
	return id, nil
}
