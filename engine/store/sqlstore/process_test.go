package sqlstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"path/filepath"

	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/store"
)

// helperEnv makes the test binary act as one more toolwright process.
const helperEnv = "TOOLWRIGHT_STORE_HELPER_DB"

type helperOut struct {
	Runs      int32    `json:"runs"`
	Envelopes []string `json:"envelopes"`
}

// TestHelperProcess is not a test: it is the body of the child processes of
// TestSeveralProcesses.
func TestHelperProcess(t *testing.T) {
	where := os.Getenv(helperEnv)
	if where == "" {
		t.Skip("helper process only")
	}
	s, err := openWhere(where)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var out helperOut
	var runs atomic.Int32
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.AppendAudit(ctx, &store.AuditRecord{TaskID: fmt.Sprint("T-", i), Tool: "place_order", Code: "ok"}); err != nil {
				t.Error(err)
			}
			c, err := s.Claim(ctx, "place_order", "T-proc", "h", 0)
			if err != nil {
				t.Error(err)
				return
			}
			env := c.Stored()
			if c.Leased() {
				runs.Add(1)
				time.Sleep(100 * time.Millisecond)
				env = result.Success(map[string]any{"n": 1})
				env.TaskID = "T-proc"
				if err := c.Complete(ctx, env); err != nil {
					t.Error(err)
				}
			}
			mu.Lock()
			out.Envelopes = append(out.Envelopes, string(env.JSON()))
			mu.Unlock()
		}()
	}
	wg.Wait()
	out.Runs = runs.Load()
	json.NewEncoder(os.Stdout).Encode(out)
}

// openWhere opens "sqlite:PATH" or a PostgreSQL URL.
func openWhere(where string) (*DB, error) {
	if p, ok := strings.CutPrefix(where, "sqlite:"); ok {
		return OpenSQLite(p, Options{})
	}
	return OpenPostgres(where, Options{})
}

func TestSeveralProcessesSQLite(t *testing.T) {
	severalProcesses(t, "sqlite:"+filepath.Join(t.TempDir(), FileName))
}

func TestSeveralProcessesPostgres(t *testing.T) { severalProcesses(t, pgURL(t)) }

// severalProcesses has 3 processes claim one task_id and append to the audit
// log at once, 10 goroutines each.
func severalProcesses(t *testing.T, where string) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	s := openT(t, func() (*DB, error) { return openWhere(where) })
	const procs = 3
	outs := make([]bytes.Buffer, procs)
	cmds := make([]*exec.Cmd, procs)
	for i := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), helperEnv+"="+where)
		cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = cmd
	}
	var runs int32
	var envs []string
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("process %d: %v\n%s", i, err, outs[i].String())
		}
		line, _, _ := strings.Cut(outs[i].String(), "\n")
		var o helperOut
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			t.Fatalf("process %d output %q: %v", i, outs[i].String(), err)
		}
		runs += o.Runs
		envs = append(envs, o.Envelopes...)
	}
	if runs != 1 || len(envs) != 10*procs {
		t.Fatalf("%d runs, %d envelopes; want 1 run and %d envelopes", runs, len(envs), 10*procs)
	}
	for _, e := range envs {
		if e != envs[0] {
			t.Fatalf("envelopes differ:\n%s\n%s", e, envs[0])
		}
	}
	if p, err := s.CheckAudit(context.Background()); p != nil || err != nil {
		t.Fatalf("audit chain after %d processes: %v, %v", procs, p, err)
	}
	if seq, _, _ := s.AuditHead(context.Background()); seq != 10*procs {
		t.Fatalf("audit head at %d, want %d", seq, 10*procs)
	}
}
