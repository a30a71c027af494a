package store

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// Session is one purpose's saved sign-in state (sessions: in the config):
// the cookies and storage of an environment of that purpose, sealed with
// AES-256-GCM under sessions.key. The store never sees it in clear.
type Session struct {
	Purpose string    `json:"purpose"`
	Sealed  []byte    `json:"-"`      // SessionKey.Seal's output (nil in ListSessions)
	KeyID   string    `json:"key_id"` // which key sealed it (SessionKey.ID)
	Saved   time.Time `json:"saved"`
	Expires time.Time `json:"expires"`
	SavedBy string    `json:"saved_by"` // what saved it: an environment id, "import", a handoff
	Bytes   int       `json:"bytes"`    // the sealed size
}

// Handoff is an environment handed to a person (an ask_human step): the
// ui shows it live until Expires or until it is finished.
type Handoff struct {
	EnvID    string    `json:"env_id"`
	Purpose  string    `json:"purpose"`
	Message  string    `json:"message"`
	Endpoint string    `json:"endpoint"`  // the DevTools URL of its browser
	TargetID string    `json:"target_id"` // its page's CDP target
	TraceID  string    `json:"trace_id"`
	Created  time.Time `json:"created"`
	Expires  time.Time `json:"expires"`
	// Finished is zero while the handoff is open; FinishedBy says who
	// finished it ("the call": until held while the call waited; "ui
	// ADDR": the person's done button; "expired"; "lost": its environment
	// closed with the server that had it).
	Finished   time.Time `json:"finished"`
	FinishedBy string    `json:"finished_by,omitempty"`
}

// Sessions keeps the saved sign-in state per purpose, and the handoffs.
type Sessions interface {
	// SaveSession stores s as its purpose's session, replacing any.
	SaveSession(ctx context.Context, s *Session) error
	// GetSession returns purpose's session; none, or an expired one, wraps
	// ErrNotFound.
	GetSession(ctx context.Context, purpose string) (*Session, error)
	// ListSessions returns every session (without Sealed), expired ones
	// too, by purpose.
	ListSessions(ctx context.Context) ([]Session, error)
	// DeleteSessions deletes purpose's session ("": every session) and
	// says how many it deleted.
	DeleteSessions(ctx context.Context, purpose string) (int64, error)
	// SaveHandoff records h (by EnvID, replacing an earlier one).
	SaveHandoff(ctx context.Context, h *Handoff) error
	// ListHandoffs returns handoffs, newest first; openOnly: those not
	// finished and not expired.
	ListHandoffs(ctx context.Context, openOnly bool) ([]Handoff, error)
	// UnfinishedHandoffs returns the handoffs nobody finished, expired
	// ones too (a server that stopped before their expiry left them so),
	// newest first.
	UnfinishedHandoffs(ctx context.Context) ([]Handoff, error)
	// FinishHandoff finishes envID's open handoff; it reports whether
	// there was one.
	FinishHandoff(ctx context.Context, envID, by string) (bool, error)
}

// DefaultSessionTTL is how long a saved session is used (sessions.ttl).
const DefaultSessionTTL = 7 * 24 * time.Hour

// SessionKey seals and opens sessions: AES-256-GCM under a key derived
// from sessions.key (SHA-256 of the secret), the purpose bound in as
// additional data, so a session copied to another purpose does not open.
type SessionKey struct {
	aead cipher.AEAD
	id   string
}

// ErrWrongKey is wrapped by SessionKey.Open when the session was sealed
// under another key (or was changed).
var ErrWrongKey = errors.New("the session was sealed under another sessions.key, or changed")

// NewSessionKey derives the key from secret (at least 16 bytes).
func NewSessionKey(secret string) (*SessionKey, error) {
	if len(secret) < 16 {
		return nil, fmt.Errorf("sessions.key: at least 16 characters, got %d", len(secret))
	}
	k := sha256.Sum256([]byte("toolwright sessions v1\x00" + secret))
	block, err := aes.NewCipher(k[:])
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	id := sha256.Sum256(append([]byte("toolwright session key id\x00"), k[:]...))
	return &SessionKey{aead: aead, id: hex.EncodeToString(id[:6])}, nil
}

// ID names the key without giving it away (stored with each session).
func (k *SessionKey) ID() string { return k.id }

// Seal encrypts plain for purpose: a random nonce, then the ciphertext.
func (k *SessionKey) Seal(purpose string, plain []byte) []byte {
	nonce := make([]byte, k.aead.NonceSize(), k.aead.NonceSize()+len(plain)+k.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return k.aead.Seal(nonce, nonce, plain, []byte(purpose))
}

// Open decrypts what Seal made for purpose; another key or purpose, or a
// change, wraps ErrWrongKey.
func (k *SessionKey) Open(purpose string, sealed []byte) ([]byte, error) {
	n := k.aead.NonceSize()
	if len(sealed) < n+k.aead.Overhead() {
		return nil, fmt.Errorf("%w (too short)", ErrWrongKey)
	}
	plain, err := k.aead.Open(nil, sealed[:n], sealed[n:], []byte(purpose))
	if err != nil {
		return nil, ErrWrongKey
	}
	return plain, nil
}
