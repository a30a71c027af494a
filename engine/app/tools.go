package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/mcpserver"
	"github.com/toolwright/toolwright/engine/policy"
	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/workflow"
)

// Tools is every tool a server of set can serve: its workflows but the
// internal ones (set.Served), then the recording tools serve --record adds
// (workflow.Workflow.Native). It is the one list toolwright tools prints
// and toolwright grant checks a name against, so a tool the server can
// answer not_granted for can be granted.
func Tools(set *workflow.Set) []*workflow.Workflow {
	out := set.Served()
	have := make(map[string]bool, len(out))
	for _, w := range out {
		have[w.Name] = true
	}
	for _, w := range mcpserver.RecordTools() {
		if !have[w.Name] { // a workflow of its name is listed: served without --record
			out = append(out, w)
		}
	}
	return out
}

// Tool looks a tool up by name in Tools(set): an internal workflow is
// not one.
func Tool(set *workflow.Set, name string) (*workflow.Workflow, bool) {
	if w, ok := set.Tool(name); ok {
		return w, !w.Internal
	}
	for _, w := range mcpserver.RecordTools() {
		if w.Name == name {
			return w, true
		}
	}
	return nil, false
}

// CheckGrant checks a grant of tool for task before any store is opened;
// its errors are about what the grant asks (the CLI's usage errors).
// A recording tool (page_fill, save_workflow, ...) is accepted whether or
// not this config's server runs with --record: grants are per tool name.
func CheckGrant(set *workflow.Set, tool, task string, ttl time.Duration, reason string) error {
	w, ok := Tool(set, tool)
	switch {
	case w != nil && w.Internal:
		return fmt.Errorf("workflow %q is internal: %s: no agent can call it, and a call: to it runs under its caller's grant; grant the tool that calls it", tool, workflow.KeyInternal+": true")
	case !ok:
		return fmt.Errorf("unknown tool %q (see toolwright tools)", tool)
	case !w.Writes():
		return fmt.Errorf("tool %q is risk: read and needs no grant", tool)
	case ttl <= 0 || ttl > store.MaxGrantTTL:
		return fmt.Errorf("--ttl must be more than 0 and at most %s, got %s", store.MaxGrantTTL, ttl)
	}
	// The store checks again; checked here, a bad task or reason is a
	// usage error before any database is opened. The task_id is not
	// trimmed: one with a space or a newline is refused, never turned into
	// another id.
	return store.CheckGrant(tool, task, ttl, strings.TrimSpace(reason))
}

// Grant is toolwright grant: CheckGrant, then the grant stored in st by
// operator, its reason redacted (a secret typed into it is kept as every
// other string toolwright keeps).
func Grant(ctx context.Context, st store.Store, cfg *config.Config, set *workflow.Set, tool, task string, ttl time.Duration, reason, operator string) (*store.Grant, error) {
	if err := CheckGrant(set, tool, task, ttl, reason); err != nil {
		return nil, err
	}
	reason = policy.NewRedactor(cfg.RedactedValues()).Redact(reason)
	return st.AddGrant(ctx, tool, task, ttl, reason, operator)
}
