package htmlview

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod"
)

// Envs is what the ui knows of the open environments: which there are,
// and how to reach one's page to show it live.
type Envs interface {
	// ListEnvs returns the open environments, those waiting for a person
	// first.
	ListEnvs(ctx context.Context) ([]EnvView, error)
	// AttachEnv reaches the page of environment id. release lets go of it;
	// it never closes the environment.
	AttachEnv(ctx context.Context, id string) (page *rod.Page, release func(), err error)
	// FinishEnv is the person's "done" on environment id: what they did is
	// kept (the purpose's saved session) and the handoff, if any, ends.
	// by says who (the ui's visitor). It returns a line for the person.
	FinishEnv(ctx context.Context, id, by string) (string, error)
}

// EnvView is one open environment in the ui's list.
type EnvView struct {
	ID, Purpose, Region, Provider string
	// Kind is "kept" or "temporary" ("" when unknown); Owner is the
	// process that has it ("HOST pid N"), when it published it.
	Kind, Owner       string
	Created, LastUsed time.Time
	// Waiting is an ask_human step's message while a call (or a timed-out
	// call's handoff) waits for a person; Until is when the handoff ends.
	Waiting string
	Until   time.Time
}

// ErrNoEnv is returned by Envs.AttachEnv for an environment that is not
// open (any more).
var ErrNoEnv = errors.New("no such open environment")

// lives keeps one live view per environment while anyone watches it.
type lives struct {
	mu sync.Mutex
	m  map[string]*liveEntry
}

type liveEntry struct {
	lv      *Live
	release func()
}

func (u *UI) envsPage(w http.ResponseWriter, r *http.Request) {
	var list []EnvView
	var problem string
	if u.Envs == nil {
		problem = "this ui has no environments to show"
	} else {
		var err error
		if list, err = u.Envs.ListEnvs(r.Context()); err != nil {
			problem = "the environments cannot be read: " + err.Error()
		}
	}
	render(w, "envs", map[string]any{"Title": "environments", "Home": "./", "Envs": list, "Problem": problem})
}

// live serves /env/ID/... : the live view of environment ID.
func (u *UI) live(w http.ResponseWriter, r *http.Request, rest string) {
	id, sub, _ := strings.Cut(rest, "/")
	if id == "" || u.Envs == nil {
		http.NotFound(w, r)
		return
	}
	if sub == "" && !strings.HasSuffix(r.URL.Path, "/") {
		http.Redirect(w, r, r.URL.Path+"/", http.StatusSeeOther)
		return
	}
	lv, err := u.liveOf(r.Context(), id)
	if errors.Is(err, ErrNoEnv) {
		http.Error(w, "environment "+id+" is not open", http.StatusNotFound)
		return
	}
	if err != nil {
		http.Error(w, "environment "+id+" cannot be reached: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	r2 := r.Clone(r.Context())
	r2.URL.Path = "/" + sub
	lv.ServeHTTP(w, r2)
}

func (u *UI) liveOf(ctx context.Context, id string) (*Live, error) {
	u.lives.mu.Lock()
	defer u.lives.mu.Unlock()
	if e, ok := u.lives.m[id]; ok {
		return e.lv, nil
	}
	var view EnvView
	if list, err := u.Envs.ListEnvs(ctx); err == nil {
		found := false
		for _, v := range list {
			if v.ID == id {
				view, found = v, true
			}
		}
		if !found {
			return nil, ErrNoEnv
		}
	}
	page, release, err := u.Envs.AttachEnv(ctx, id)
	if err != nil {
		return nil, err
	}
	title := "environment " + id
	if view.Purpose != "" {
		title += " (" + view.Purpose + ")"
	}
	var waiting func(context.Context) (string, error)
	if view.Waiting != "" {
		// The call waits for a person: the viewer says when it has gone on.
		waiting = func(ctx context.Context) (string, error) {
			list, err := u.Envs.ListEnvs(ctx)
			if err != nil {
				return "", err
			}
			for _, v := range list {
				if v.ID == id {
					return v.Waiting, nil
				}
			}
			return "", nil // closed: the call ended
		}
	}
	lv := NewLive(page, LiveOptions{
		Title: title, Message: view.Waiting, Secrets: u.Secrets, Until: view.Until, Waiting: waiting,
		Done: func(r *http.Request) (string, error) {
			by := "ui " + r.RemoteAddr
			msg, err := u.Envs.FinishEnv(r.Context(), id, by)
			if err == nil {
				u.dropLive(id)
			}
			return msg, err
		},
	})
	if u.lives.m == nil {
		u.lives.m = map[string]*liveEntry{}
	}
	u.lives.m[id] = &liveEntry{lv: lv, release: release}
	return lv, nil
}

// dropLive closes the live view of id (its viewers' streams end).
func (u *UI) dropLive(id string) {
	u.lives.mu.Lock()
	e, ok := u.lives.m[id]
	delete(u.lives.m, id)
	u.lives.mu.Unlock()
	if ok {
		e.lv.Close()
		if e.release != nil {
			e.release()
		}
	}
}

// Close ends every live view the ui opened.
func (u *UI) Close() {
	u.lives.mu.Lock()
	ids := make([]string, 0, len(u.lives.m))
	for id := range u.lives.m {
		ids = append(ids, id)
	}
	u.lives.mu.Unlock()
	for _, id := range ids {
		u.dropLive(id)
	}
}
