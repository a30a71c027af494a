package store

import (
	"context"
	"encoding/json"
	"time"
)

// MaxFingerprint bounds the data of one fingerprint: the store refuses
// more, so a page with a huge label cannot grow the table.
const MaxFingerprint = 4 << 10

// Fingerprint is what a target's element looked like the last time the
// target resolved (engine/repair reads and writes Data): what a repair
// proposal looks for in the page once the target stops resolving. Data
// never holds a field's value or a secret: engine/repair leaves values
// out and redacts what it keeps before it is saved.
type Fingerprint struct {
	Target string          `json:"target"`
	Data   json.RawMessage `json:"data"`
	// Hash identifies Data: a save with the same hash only marks the
	// fingerprint seen again.
	Hash string `json:"hash"`
	// Page is the URL path the element was on.
	Page string `json:"page,omitempty"`
	// Seen is when the target last resolved to this element; Changed when
	// Data last changed.
	Seen    time.Time `json:"seen"`
	Changed time.Time `json:"changed"`
}

// Fingerprints keeps one fingerprint per target.
type Fingerprints interface {
	// SaveFingerprint stores fp as its target's, replacing any; Changed is
	// kept when the stored Hash is fp's (Seen, a zero one meaning now, is
	// always written). Data above MaxFingerprint bytes is refused.
	SaveFingerprint(ctx context.Context, fp *Fingerprint) error
	// GetFingerprint returns target's fingerprint; none wraps ErrNotFound.
	GetFingerprint(ctx context.Context, target string) (*Fingerprint, error)
}
