package run

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/store"
)

// sessions keeps each purpose's sign-in state (DESIGN "Sessions and
// handing over to a person"): restored into every new environment of the
// purpose before its first step, saved after a `session: save` workflow
// succeeds and on close_env. nil when sessions are off (no sessions.key).
type sessions struct {
	key *store.SessionKey
	ttl time.Duration
	st  store.Store
	log *slog.Logger

	restored sync.Map // env id → true: its purpose's session was put in
	warned   sync.Map // purpose → true: a session that does not open was logged
}

// SessionKey reads sessions.key from cfg: nil, nil when sessions are off.
func SessionKey(cfg *config.Config) (*store.SessionKey, error) {
	secret, err := cfg.SessionKey()
	if err != nil || secret == "" {
		return nil, err
	}
	return store.NewSessionKey(secret)
}

func newSessions(cfg *config.Config, st store.Store, log *slog.Logger) *sessions {
	if st == nil {
		return nil
	}
	key, err := SessionKey(cfg)
	if err != nil {
		log.Error("sessions are off: sessions.key is not usable", "problem", err.Error())
		return nil
	}
	if key == nil {
		log.Info("sessions are off: no sessions.key (set TOOLWRIGHT_SESSION_KEY or sessions.key to keep sign-ins across calls)")
		return nil
	}
	ttl := cfg.Sessions.TTL
	if ttl <= 0 {
		ttl = store.DefaultSessionTTL
	}
	log.Info("sessions are on", "ttl", ttl.String(), "key_id", key.ID())
	return &sessions{key: key, ttl: ttl, st: st, log: log}
}

// ErrNoSession is returned by LoadSession when the purpose has no
// session that is still valid.
var ErrNoSession = errors.New("no saved session")

// LoadSession reads and opens purpose's saved session. A session sealed
// under another key wraps store.ErrWrongKey.
func LoadSession(ctx context.Context, st store.Store, key *store.SessionKey, purpose string) (*browser.StorageState, *store.Session, error) {
	ss, err := st.GetSession(ctx, purpose)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, ErrNoSession
	}
	if err != nil {
		return nil, nil, err
	}
	plain, err := key.Open(purpose, ss.Sealed)
	if err != nil {
		return nil, ss, err
	}
	state, err := browser.ParseStorageState(plain)
	if err != nil {
		return nil, ss, err
	}
	return state, ss, nil
}

// EmptySession is the warning about a saved session that holds nothing:
// every call of its purpose signs in again, which otherwise looks like
// sessions not working (a site whose sign-in lives where no session
// reaches, or a workflow that saves before it has signed in).
const EmptySession = "the saved session holds nothing (no cookies, no local or session storage): every call of this purpose will sign in again; check that the workflow saving it ends signed in"

// SaveSession seals state as purpose's session for ttl.
func SaveSession(ctx context.Context, st store.Store, key *store.SessionKey, purpose string, state *browser.StorageState, ttl time.Duration, by string) error {
	plain, err := json.Marshal(state)
	if err != nil {
		return err
	}
	now := time.Now()
	return st.SaveSession(ctx, &store.Session{Purpose: purpose, Sealed: key.Seal(purpose, plain), KeyID: key.ID(),
		Saved: now, Expires: now.Add(ttl), SavedBy: by})
}

// restore puts the purpose's session into env once, before its first
// step. A missing, expired or unreadable session leaves env signed out:
// the workflow's own sign-in runs (never an error).
func (s *sessions) restore(ctx context.Context, env *browser.Env) {
	if s == nil || env == nil {
		return
	}
	if _, done := s.restored.LoadOrStore(env.ID, true); done {
		return
	}
	state, ss, err := LoadSession(ctx, s.st, s.key, env.Purpose)
	switch {
	case errors.Is(err, ErrNoSession):
		return
	case errors.Is(err, store.ErrWrongKey):
		if _, seen := s.warned.LoadOrStore(env.Purpose, true); !seen {
			s.log.Error("a saved session does not open with this sessions.key: it is ignored (the next sign-in replaces it; `toolwright sessions clear` removes it)",
				"purpose", env.Purpose, "sealed_with", ss.KeyID, "key_id", s.key.ID())
		}
		return
	case err != nil:
		s.log.Warn("a saved session cannot be read: the environment starts signed out", "purpose", env.Purpose, "err", err)
		return
	}
	refused, err := env.RestoreState(ctx, state)
	if len(refused) > 0 {
		s.log.Warn("Chromium refused cookies of a saved session: each is left out, the rest is restored",
			"purpose", env.Purpose, "env", env.ID, "refused", refused)
	}
	if err != nil {
		s.log.Warn("a saved session cannot be restored: the environment starts signed out", "purpose", env.Purpose, "env", env.ID, "err", err)
		return
	}
	s.log.Debug("session restored", "purpose", env.Purpose, "env", env.ID, "cookies", len(state.Cookies), "origins", len(state.Origins), "saved", ss.Saved)
}

// save captures env's sign-in state as its purpose's session, keeping
// the storage of origins the page is not on now. A session with nothing in
// it is still saved (the site signed out: the old one no longer holds) and
// logged as a warning naming the purpose.
func (s *sessions) save(ctx context.Context, env *browser.Env, by string) {
	if s == nil || env == nil {
		return
	}
	state, err := env.CaptureState(ctx)
	if err != nil {
		s.log.Warn("the session cannot be captured", "purpose", env.Purpose, "env", env.ID, "err", err)
		return
	}
	if old, _, err := LoadSession(ctx, s.st, s.key, env.Purpose); err == nil {
		state.Merge(old)
	}
	if err := SaveSession(ctx, s.st, s.key, env.Purpose, state, s.ttl, by); err != nil {
		s.log.Warn("the session cannot be saved", "purpose", env.Purpose, "env", env.ID, "err", err)
		return
	}
	if state.Empty() {
		s.log.Warn(EmptySession, "purpose", env.Purpose, "env", env.ID, "by", by)
	}
	s.log.Debug("session saved", "purpose", env.Purpose, "env", env.ID, "cookies", len(state.Cookies), "origins", len(state.Origins), "by", by)
}

// forget drops what the sessions know of a closed environment.
func (s *sessions) forget(id string) {
	if s != nil {
		s.restored.Delete(id)
	}
}
