package htmlview

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// Repairs is what the ui knows of repair proposals: the pending ones, as a
// diff of the selector map each would make, and applying one.
type Repairs interface {
	// PendingRepairs lists the proposals of recent calls that the selector
	// map does not hold yet, newest first, one per target.
	PendingRepairs(ctx context.Context) (*RepairsView, error)
	// ApplyRepair writes proposal id into the selector map, if the map is
	// still the one whose hash the person saw, and audits it as by (the
	// ui's visitor). It returns a line for the person.
	ApplyRepair(ctx context.Context, id, hash, by string) (string, error)
}

// RepairsView is the pending proposals against one state of the map.
type RepairsView struct {
	File    string // the selector map
	Hash    string // of the file the diffs were made from
	Pending []RepairView
}

// RepairView is one pending proposal.
type RepairView struct {
	ID       string // what ApplyRepair takes
	Target   string
	TraceID  string // the call it was proposed in
	Tool     string
	Seen     time.Time
	Message  string // which features agreed
	Locators []string
	Used     bool // a read step of that call went on with it (repair: use)
	Diff     []DiffLine
	Problem  string // why it cannot be applied as it stands
}

// DiffLine is one line of a diff: Op is " " (kept), "-" or "+".
type DiffLine struct{ Op, Text string }

// uiHeader must be on every POST the ui's own pages send (as the live
// view's input carries X-Toolwright-Live): a form on another site cannot
// set it, and a script on another site cannot send it without a CORS
// preflight the ui never answers; the token cookie is SameSite=Strict too.
const uiHeader = "X-Toolwright-UI"

func (u *UI) repairsPage(w http.ResponseWriter, r *http.Request) {
	data := map[string]any{"Title": "repairs", "Home": "./"}
	if u.Repairs == nil {
		data["Problem"] = "this ui has no selector map to repair"
	} else if v, err := u.Repairs.PendingRepairs(r.Context()); err != nil {
		data["Problem"] = "the repairs cannot be read: " + err.Error()
	} else {
		data["View"] = v
	}
	renderCSP(w, "repairs", data, "default-src 'none'; script-src 'self'; connect-src 'self'; img-src 'self'; style-src 'unsafe-inline'")
}

// applyRepair is the person's apply: POST /repairs/apply with
// {"id": ..., "hash": ...} and the ui header.
func (u *UI) applyRepair(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	if r.Header.Get(uiHeader) != "1" {
		http.Error(w, "forbidden: missing "+uiHeader+" header", http.StatusForbidden)
		return
	}
	if u.Repairs == nil {
		http.Error(w, "this ui has no selector map to repair", http.StatusNotFound)
		return
	}
	var in struct{ ID, Hash string }
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&in); err != nil || in.ID == "" {
		http.Error(w, "bad request: want {\"id\": ..., \"hash\": ...}", http.StatusBadRequest)
		return
	}
	msg, err := u.Repairs.ApplyRepair(r.Context(), in.ID, in.Hash, "ui "+r.RemoteAddr)
	if err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte(msg))
}

// repairsJS serves the script of the repairs page's apply buttons.
func repairsJS(w http.ResponseWriter) {
	b, err := files.ReadFile("templates/repairs.js")
	if err != nil {
		http.Error(w, "missing", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	_, _ = w.Write(b)
}
