package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"

	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/htmlview"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/engine/store"
)

// LiveEnvs is what `toolwright ui` shows of the environments (an
// htmlview.Envs): those handed to a person (open handoffs), those the
// serving processes publish (their browsers die with them: provider local)
// and the kept environments of the shared registry. It reaches a page over
// its browser's DevTools endpoint, as another replica would, and never
// closes an environment.
type LiveEnvs struct {
	Store store.Store
	// Key seals what a person did when they press done (nil: sessions
	// off, nothing is kept); TTL is sessions.ttl.
	Key *store.SessionKey
	TTL time.Duration
}

// ListEnvs implements htmlview.Envs. A handoff whose environment is gone
// (its process died: not published, not open in the registry) is not
// listed.
func (l *LiveEnvs) ListEnvs(ctx context.Context) ([]htmlview.EnvView, error) {
	hs, err := l.Store.ListHandoffs(ctx, true)
	if err != nil {
		return nil, err
	}
	pub, err := l.Store.PublishedEnvs(ctx)
	if err != nil {
		return nil, err
	}
	byID := map[string]store.PublishedEnv{}
	for _, p := range pub {
		byID[p.ID] = p
	}
	var out []htmlview.EnvView
	seen := map[string]bool{}
	for _, h := range hs {
		alive, err := run.EnvAlive(ctx, l.Store, pub, h.EnvID)
		if err != nil {
			return nil, err
		}
		if !alive {
			continue
		}
		seen[h.EnvID] = true
		v := htmlview.EnvView{ID: h.EnvID, Purpose: h.Purpose, Provider: "handoff", Created: h.Created, LastUsed: h.Created, Waiting: h.Message, Until: h.Expires}
		if p, ok := byID[h.EnvID]; ok {
			v.Region, v.Provider, v.Kind, v.Owner = p.Region, p.Provider, kind(p.Temporary), p.Process
		}
		out = append(out, v)
	}
	for _, p := range pub {
		if seen[p.ID] || p.Endpoint == "" || p.TargetID == "" {
			continue
		}
		seen[p.ID] = true
		out = append(out, htmlview.EnvView{ID: p.ID, Purpose: p.Purpose, Region: p.Region, Provider: p.Provider, Kind: kind(p.Temporary),
			Owner: p.Process, Created: p.Created, LastUsed: p.LastUsed})
	}
	idle, err := l.Store.IdleEnvs(ctx, "", "", time.Time{})
	if err != nil {
		return nil, err
	}
	for _, r := range idle {
		if seen[r.ID] || r.Endpoint == "" || r.TargetID == "" {
			continue
		}
		out = append(out, htmlview.EnvView{ID: r.ID, Purpose: r.Purpose, Region: r.Region, Provider: r.Provider, Kind: kind(r.Temporary),
			Created: r.Created, LastUsed: r.LastUsed})
	}
	return out, nil
}

func kind(temporary bool) string {
	if temporary {
		return "temporary"
	}
	return "kept"
}

// locate is where environment id lives: its open handoff, else the
// record a live process published, else its registry record.
func (l *LiveEnvs) locate(ctx context.Context, id string) (endpoint, target, purpose string, handoff bool, err error) {
	hs, err := l.Store.ListHandoffs(ctx, true)
	if err != nil {
		return "", "", "", false, err
	}
	for _, h := range hs {
		if h.EnvID == id {
			return h.Endpoint, h.TargetID, h.Purpose, true, nil
		}
	}
	pub, err := l.Store.PublishedEnvs(ctx)
	if err != nil {
		return "", "", "", false, err
	}
	for _, p := range pub {
		if p.ID == id && p.Endpoint != "" && p.TargetID != "" {
			return p.Endpoint, p.TargetID, p.Purpose, false, nil
		}
	}
	rec, err := l.Store.GetEnv(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (rec.Closed || rec.Endpoint == "" || rec.TargetID == "")) {
		return "", "", "", false, htmlview.ErrNoEnv
	}
	if err != nil {
		return "", "", "", false, err
	}
	return rec.Endpoint, rec.TargetID, rec.Purpose, false, nil
}

// AttachEnv implements htmlview.Envs: a DevTools connection of its own to
// the environment's browser, and its page; release drops the connection
// (the browser and the environment live on).
func (l *LiveEnvs) AttachEnv(ctx context.Context, id string) (*rod.Page, func(), error) {
	endpoint, target, _, _, err := l.locate(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	return attachPage(ctx, endpoint, target)
}

func attachPage(ctx context.Context, endpoint, target string) (*rod.Page, func(), error) {
	dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	ws := &cdp.WebSocket{}
	if err := ws.Connect(dctx, endpoint, nil); err != nil {
		return nil, nil, fmt.Errorf("the environment's browser does not answer: %w", err)
	}
	b := rod.New().Client(cdp.New().Start(ws)).NoDefaultDevice()
	if err := b.Connect(); err != nil {
		_ = ws.Close()
		return nil, nil, err
	}
	page, err := b.Context(dctx).PageFromTarget(proto.TargetTargetID(target))
	if err != nil {
		_ = ws.Close()
		return nil, nil, fmt.Errorf("the environment's page is gone: %w", err)
	}
	return page.Context(context.Background()), func() { _ = ws.Close() }, nil
}

// FinishEnv implements htmlview.Envs: what the person did is saved as the
// purpose's session (when sessions are on), the handoff ends, and the
// audit log records who finished it.
func (l *LiveEnvs) FinishEnv(ctx context.Context, id, by string) (string, error) {
	endpoint, target, purpose, handoff, err := l.locate(ctx, id)
	if err != nil {
		return "", err
	}
	msg := "done"
	if l.Key != nil {
		page, release, err := attachPage(ctx, endpoint, target)
		if err != nil {
			return "", err
		}
		defer release()
		cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		info, err := proto.TargetGetTargetInfo{TargetID: page.TargetID}.Call(page.Browser().Context(cctx))
		if err != nil {
			return "", fmt.Errorf("read the environment's browser context: %w", err)
		}
		state, err := browser.CaptureState(cctx, page.Browser(), info.TargetInfo.BrowserContextID, page)
		if err != nil {
			return "", err
		}
		if old, _, err := run.LoadSession(cctx, l.Store, l.Key, purpose); err == nil {
			state.Merge(old)
		}
		if err := run.SaveSession(cctx, l.Store, l.Key, purpose, state, l.TTL, "handoff "+id+" ("+by+")"); err != nil {
			return "", err
		}
		msg = fmt.Sprintf("saved as the session of purpose %q: the agent's next call runs signed in", purpose)
		if state.Empty() {
			msg = fmt.Sprintf("saved as the session of purpose %q, but %s", purpose, run.EmptySession)
		}
	}
	if handoff {
		if _, err := l.Store.FinishHandoff(ctx, id, by); err != nil {
			return "", err
		}
	}
	if err := l.Store.AppendAudit(ctx, &store.AuditRecord{Tool: "handoff", TaskID: by, EnvID: id, Purpose: purpose, Code: "finished"}); err != nil {
		return "", err
	}
	return msg, nil
}
