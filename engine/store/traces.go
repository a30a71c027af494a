package store

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"time"
)

// Trace is the record of one call. Every string in it must already be
// redacted by the caller; the store writes what it is given.
type Trace struct {
	ID         string          `json:"id"`
	TaskID     string          `json:"task_id,omitempty"`
	Tool       string          `json:"tool"`
	Args       json.RawMessage `json:"args,omitempty"`
	Start      time.Time       `json:"start"`
	DurationMS int64           `json:"duration_ms"`
	Code       string          `json:"code"`
	Message    string          `json:"message,omitempty"`
	Attempts   int             `json:"attempts"`
	EnvID      string          `json:"env_id,omitempty"`
	Purpose    string          `json:"purpose,omitempty"`
	Steps      []StepRecord    `json:"steps"`
	// Artifacts are the call's files, as paths relative to artifacts_dir
	// ("TRACE_ID/page.html"), so replicas sharing that folder under other
	// mount points read them alike; ArtifactPath resolves one.
	Artifacts []string `json:"artifacts,omitempty"`
	// Error is the raw cause of a failure, for people reading traces.
	Error string `json:"error,omitempty"`
	// Envelope is the result as the agent got it (redacted), its data cut
	// when the whole is above MaxTraceEnvelope bytes.
	Envelope json.RawMessage `json:"envelope,omitempty"`
}

// MaxTraceEnvelope bounds the envelope a trace keeps.
const MaxTraceEnvelope = 16 << 10

// TraceRunning is the code of a trace stub: the record a write call saves
// as it starts (tool, task_id, arguments, start), so a call interrupted by
// the server's death still has a trace for the outcome_unknown answer to
// name. The call's final trace replaces its stub.
const TraceRunning = "running"

// StepRecord is one executed step of a trace.
type StepRecord struct {
	Index int `json:"index"`
	// Path locates nested steps: "3" is the fourth top-level step, "3.1"
	// the second step inside it.
	Path       string `json:"path"`
	Kind       string `json:"kind"`
	Name       string `json:"name,omitempty"`
	Target     string `json:"target,omitempty"`
	Strategy   string `json:"strategy,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	// IdleMS is the time the step spent waiting for something that did
	// not happen: a bound on what an earlier step set going that ran out
	// with work still pending, a window for a navigation that never
	// started, a condition polled to the end of its time.
	IdleMS  int64  `json:"idle_ms,omitempty"`
	Code    string `json:"code"`
	Attempt int    `json:"attempt"`
	Error   string `json:"error,omitempty"`
	// Dialog notes the JavaScript dialogs answered while the step ran:
	// type, message and the answer.
	Dialog string `json:"dialog,omitempty"`
	// Held counts the requests of the page the browser refused while the
	// step ran (policy.subresources: allowed_hosts): images, scripts,
	// fetch and XHR, beacons, WebSockets, frames to hosts outside
	// policy.allowed_hosts. HeldURLs are the first few of them.
	Held     int      `json:"held_requests,omitempty"`
	HeldURLs []string `json:"held_urls,omitempty"`
	// Locators are the target's locators, primary first, on a step that
	// failed: what was looked for.
	Locators []string `json:"locators,omitempty"`
	// Files are the names of the files a download step kept in
	// state_dir/downloads/TRACE_ID: the only files of that folder
	// resources/read serves.
	Files []string `json:"files,omitempty"`
	// Repair is the repair proposal for the step's target, when the step
	// failed because it was not found (engine/repair): for the people who
	// keep the selector map; the agent never sees it.
	Repair *Repair `json:"repair,omitempty"`
	// ReadWith is the path of the step (a wait or an extract just before
	// this extract) whose request read this step's value, in the same look
	// at the page: this step asked the page nothing.
	ReadWith string `json:"read_with,omitempty"`
}

// Repair is a repair proposal for a target that stopped resolving: a
// locator for the one element of the page that matches the target's last
// fingerprint well (Status "proposed"), or why there is none ("ambiguous":
// several match about as well; "none").
type Repair struct {
	Status string `json:"status"`
	// Locators are the proposed locator, primary first, as `selectors
	// check` prints them; YAML is the entry to paste after review.
	Locators []string `json:"locators,omitempty"`
	YAML     string   `json:"yaml,omitempty"`
	// Agreed are the features of the last fingerprint the element shares.
	Agreed  []string `json:"agreed,omitempty"`
	Message string   `json:"message"`
	// DurationMS is what looking for the repair added to the call.
	DurationMS int64 `json:"duration_ms"`
	// Used: the step went on with the proposal (config repair: use), no
	// person having reviewed it; the envelope lists the target as healed.
	Used bool `json:"used,omitempty"`
}

// Failed reports whether the call did not end ok.
func (t *Trace) Failed() bool { return t.Code != "ok" }

// TraceFilter selects traces for ListTraces.
type TraceFilter struct {
	FailedOnly bool      // only calls whose code is not "ok"
	Since      time.Time // only calls that started at or after Since (zero: all)
	Tool       string    // only this tool (empty: all)
	TaskID     string    // only this task_id (empty: all)
	Limit      int       // at most this many (0: 100; capped at 10000)
}

// ArtifactPath is where artifact a of a trace is on this machine: a joined
// to dir (artifacts_dir), or a itself when it is absolute (traces written
// before artifacts_dir existed). It returns "" for a relative path that
// would leave dir.
func ArtifactPath(dir, a string) string {
	if filepath.IsAbs(a) {
		return a
	}
	rel := filepath.Clean(filepath.FromSlash(a))
	if rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.Join(dir, rel)
}
