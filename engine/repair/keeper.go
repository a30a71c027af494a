package repair

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/toolwright/toolwright/engine/store"
)

// Refresh is how often one process reads a target's element again to see
// whether its fingerprint changed: reading costs a request, so a step
// pays it once in a while, not every time.
const Refresh = 10 * time.Minute

// reseen is how old a stored fingerprint may grow before an unchanged one
// is written again, to say it was seen.
const reseen = 24 * time.Hour

// Keeper keeps fingerprints in the store: it says when a target's is due
// to be read (Due) and writes one only when it changed (Keep).
type Keeper struct {
	st     store.Fingerprints
	redact func(string) string
	now    func() time.Time

	mu   sync.Mutex
	last map[string]kept
}

type kept struct {
	hash string    // the last hash this process wrote or found stored ("": none yet)
	at   time.Time // when the target was last read
}

// NewKeeper keeps fingerprints in st; redact (may be nil) takes secret
// values out of what is kept.
func NewKeeper(st store.Fingerprints, redact func(string) string) *Keeper {
	return &Keeper{st: st, redact: redact, now: time.Now, last: map[string]kept{}}
}

// Due reports whether target's element should be read now: never read by
// this process, or not for Refresh. A true answer counts as the read, so
// two steps at once do not both read. A nil Keeper is never due.
func (k *Keeper) Due(target string) bool {
	if k == nil {
		return false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	l, ok := k.last[target]
	if ok && k.now().Sub(l.at) < Refresh {
		return false
	}
	l.at = k.now()
	k.last[target] = l
	return true
}

// Keep stores p as target's fingerprint, seen on page (a URL path), unless
// the store holds the same one, seen within a day.
func (k *Keeper) Keep(ctx context.Context, target, page string, p *Print) error {
	data, hash := p.Seal(k.redact)
	k.mu.Lock()
	l := k.last[target]
	k.mu.Unlock()
	if l.hash == "" {
		old, err := k.st.GetFingerprint(ctx, target)
		if err == nil && old.Hash == hash && k.now().Sub(old.Seen) < reseen {
			l.hash = hash
		}
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	if l.hash != hash {
		if err := k.st.SaveFingerprint(ctx, &store.Fingerprint{Target: target, Data: data, Hash: hash, Page: page}); err != nil {
			return err
		}
	}
	k.mu.Lock()
	k.last[target] = kept{hash: hash, at: k.now()}
	k.mu.Unlock()
	return nil
}

// Last is target's last fingerprint; none wraps store.ErrNotFound.
func (k *Keeper) Last(ctx context.Context, target string) (*Print, *store.Fingerprint, error) {
	fp, err := k.st.GetFingerprint(ctx, target)
	if err != nil {
		return nil, nil, err
	}
	var p Print
	if err := json.Unmarshal(fp.Data, &p); err != nil {
		return nil, nil, fmt.Errorf("the fingerprint of %s is not readable: %w", target, err)
	}
	return &p, fp, nil
}
