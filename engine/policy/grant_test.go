package policy

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/errs"
)

// grantSourceFunc adapts a function to GrantSource.
type grantSourceFunc func(ctx context.Context, tool, taskID string, now time.Time) (string, error)

func (f grantSourceFunc) LiveGrantID(ctx context.Context, tool, taskID string, now time.Time) (string, error) {
	return f(ctx, tool, taskID, now)
}

type fakeGrants map[string]string // tool+"/"+task → grant id

func (f fakeGrants) LiveGrantID(_ context.Context, tool, taskID string, _ time.Time) (string, error) {
	return f[tool+"/"+taskID], nil
}

func TestDecide(t *testing.T) {
	grants := fakeGrants{"place_order/T-1": "gr_1"}
	broken := grantSourceFunc(func(context.Context, string, string, time.Time) (string, error) {
		return "", errors.New("database is locked")
	})
	for _, c := range []struct {
		name       string
		mode       WriteMode
		risk, task string
		src        GrantSource
		grant      string
		code       string
		msg        string
	}{
		{name: "read", mode: WriteGrant, risk: RiskRead, src: grants},
		{name: "read when disabled", mode: WriteDisabled, risk: RiskRead},
		{name: "granted", mode: WriteGrant, risk: RiskWrite, task: "T-1", src: grants, grant: "gr_1"},
		{name: "default mode is grant", mode: "", risk: RiskWrite, task: "T-1", src: grants, grant: "gr_1"},
		{name: "no grant", mode: WriteGrant, risk: RiskDestructive, task: "T-2", src: grants, code: errs.NotGranted,
			msg: `toolwright grant --tool place_order --task T-2 --ttl 15m --reason "..."`},
		{name: "odd task id is quoted", mode: WriteGrant, risk: RiskWrite, task: "it's", src: grants, code: errs.NotGranted,
			msg: `--task 'it'\''s' --ttl`},
		{name: "undeclared risk is write", mode: WriteGrant, risk: "", task: "T-2", src: grants, code: errs.NotGranted, msg: "is a write tool"},
		{name: "no task_id", mode: WriteGrant, risk: RiskWrite, src: grants, code: errs.NotGranted, msg: "needs a task_id"},
		{name: "no task_id when enabled", mode: WriteEnabled, risk: RiskWrite, code: errs.NotGranted, msg: "needs a task_id"},
		{name: "enabled", mode: WriteEnabled, risk: RiskDestructive, task: "T-9"},
		{name: "disabled", mode: WriteDisabled, risk: RiskWrite, task: "T-1", src: grants, code: errs.NotGranted, msg: "disabled by policy.write_tools"},
		{name: "source fails", mode: WriteGrant, risk: RiskWrite, task: "T-1", src: broken, code: errs.Internal},
	} {
		t.Run(c.name, func(t *testing.T) {
			id, err := DecideWith(context.Background(), c.mode, c.risk, "place_order", c.task, c.src, "")
			if c.code == "" {
				if err != nil || id != c.grant {
					t.Fatalf("got %q, %v; want %q, nil", id, err, c.grant)
				}
				return
			}
			e := errs.As(err)
			if e == nil || e.Code != c.code || !strings.Contains(e.Message, c.msg) {
				t.Fatalf("got %v, want %s with %q", err, c.code, c.msg)
			}
			if c.code == errs.NotGranted && !e.NeedsHuman {
				t.Fatal("not_granted must need a human")
			}
		})
	}
}
