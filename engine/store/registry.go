package store

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolwright/toolwright/engine/config"
)

// Store backends register themselves, as database/sql drivers and step
// kinds do: each is a package of its own (engine/store/sqlite,
// engine/store/postgres) whose init calls Register with its name, the
// store.url schemes it opens and its constructor; engine/store/all imports
// the built-in ones. Open picks one by store.url, and the config's
// store.url accepts exactly the registered schemes. The contract every
// backend passes is storetest.

// Options tune a store, whichever its backend. The zero value is the
// default.
type Options struct {
	// BusyTimeout is how long opening the store (connecting, migrating)
	// and recording a call that already ran (its trace, audit record and
	// idempotency envelope) wait for a lock another writer holds before
	// they give up (default 10s).
	BusyTimeout time.Duration
	// LockWait is how long the writes that come before a call runs (Ready
	// and Claim) wait for a lock another writer holds before they fail with
	// store_busy, so a locked database answers quickly instead of holding
	// the call (default 1.5s; DESIGN.md promises store_busy within 2 s).
	LockWait time.Duration
	// IdempotencyTTL is used by Claim when it is given no ttl (default 24h).
	IdempotencyTTL time.Duration
	// LeaseDuration is how long a pending idempotency lease stays valid
	// without a heartbeat; a process that dies frees its task_ids after this
	// long (default 30s). The holder renews it every LeaseDuration/3.
	LeaseDuration time.Duration
	// Conns is the size of the read pool on SQLite (writes always go
	// through one connection per process, so writers in one process queue
	// in Go instead of spinning on SQLite's busy handler) and of the whole
	// pool on PostgreSQL (default 4 on SQLite, 16 on PostgreSQL).
	Conns int
	// AuditKey is audit.key: with it every audit record appended is keyed
	// by an HMAC-SHA256 under it, and CheckAudit checks keyed records with
	// it (ChainChecker). Without it the chain is a plain hash chain,
	// and a chain that is already keyed takes no more records.
	AuditKey []byte
	// OldAuditKeys are retired audit keys (before rotations) that checks
	// use to verify their records' HMACs too (`audit verify --old-key-env`).
	OldAuditKeys [][]byte
	// Now is the store's clock (default time.Now); tests set it.
	Now func() time.Time
	// ReadOnly opens the store to read it and never write (`audit
	// verify`): a SQLite file that is missing (ErrNoDatabase) or
	// empty is refused instead of created, nothing is migrated, and a database without toolwright's
	// schema is refused (ErrNoSchema). Only the read methods work.
	ReadOnly bool
}

// Backend is one kind of store: the store.url values it opens and how.
type Backend struct {
	// Name is the backend's name ("sqlite", "postgres"), as
	// Store.Backend says it.
	Name string
	// Schemes are the store.url schemes it opens ("postgres",
	// "postgresql"); the default backend has none.
	Schemes []string
	// Default makes it the store of an empty store.url, in state_dir; one
	// backend is.
	Default bool
	// URL is what its store.url looks like, for docs and messages
	// ("postgres://user:pass@host:5432/db"); the default's is empty.
	URL string
	// Doc says what it is ("SQLite in state_dir").
	Doc string
	// Open opens (creating or migrating as needed) the store at url;
	// stateDir is the config's state_dir.
	Open func(url, stateDir string, o Options) (Store, error)
}

var (
	backendsMu sync.RWMutex
	backends   []Backend // the default first, then by name
)

// Register makes a backend available through Open and store.url. It panics
// on an empty name, a missing Open, a name or scheme registered twice, a
// second default, or a backend that is neither the default nor opens a
// scheme: backends register from init, and each is a programming error.
func Register(b Backend) {
	backendsMu.Lock()
	defer backendsMu.Unlock()
	if b.Name == "" || b.Open == nil || (len(b.Schemes) == 0) == !b.Default {
		panic(fmt.Sprintf("store: backend %q needs a Name, Open, and schemes or Default (not both)", b.Name))
	}
	for _, o := range backends {
		if o.Name == b.Name || (o.Default && b.Default) || slices.ContainsFunc(b.Schemes, func(s string) bool { return slices.Contains(o.Schemes, s) }) {
			panic(fmt.Sprintf("store: backend %q clashes with %q (name, default or scheme)", b.Name, o.Name))
		}
	}
	backends = append(backends, b)
	slices.SortStableFunc(backends, func(x, y Backend) int {
		if x.Default != y.Default {
			if x.Default {
				return -1
			}
			return 1
		}
		return strings.Compare(x.Name, y.Name)
	})
	config.RegisterStoreBackend(config.StoreBackend{Name: b.Name, Schemes: b.Schemes, Default: b.Default, URL: b.URL, Doc: b.Doc})
}

// Backends lists the registered backends, the default first.
func Backends() []Backend {
	backendsMu.RLock()
	defer backendsMu.RUnlock()
	return slices.Clone(backends)
}

// Open opens the store url names: the default backend for an empty url,
// else the backend registered for its scheme. The error never holds a
// password.
func Open(url, stateDir string, o Options) (Store, error) {
	scheme, _, hasScheme := strings.Cut(url, "://")
	var want []string
	for _, b := range Backends() {
		if url == "" && b.Default || hasScheme && slices.Contains(b.Schemes, scheme) {
			return b.Open(url, stateDir, o)
		}
		if b.Default {
			want = append(want, "empty ("+b.Doc+")")
		} else {
			want = append(want, b.URL)
		}
	}
	if len(want) == 0 {
		return nil, errors.New("store: no store backend is registered (import engine/store/all)")
	}
	return nil, fmt.Errorf("store.url %q: want %s", RedactURL(url), strings.Join(want, " or "))
}

// RedactURL drops the password of a database URL for messages.
func RedactURL(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	cred, host, ok := strings.Cut(rest, "@")
	if !ok {
		return u
	}
	if user, _, hasPass := strings.Cut(cred, ":"); hasPass {
		return scheme + "://" + user + ":xxxxx@" + host
	}
	return u
}
