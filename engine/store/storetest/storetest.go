// Package storetest is the contract every store.Store implementation
// passes: idempotency under concurrent callers on several handles (each
// handle stands for another process or replica), stale-lease takeover,
// one audit chain under concurrent writers, tamper detection, grants,
// traces and fingerprints. Each registered backend's package runs it on
// itself (TestContract in engine/store/sqlite and engine/store/postgres),
// and engine/store/all's TestEveryBackendRunsTheContract fails for a
// registered backend whose package does not.
package storetest

import (
	"os"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/store"
)

// Options are the knobs the suite turns; a Backend maps them to its own.
type Options struct {
	// LeaseDuration of idempotency leases (0: the backend's default).
	LeaseDuration time.Duration
	// Now is the store's clock (nil: time.Now).
	Now func() time.Time
	// AuditKey is audit.key (nil: a plain hash chain).
	AuditKey []byte
	// OldAuditKeys are retired audit keys checks verify with too.
	OldAuditKeys [][]byte
	// BusyTimeout is how long recording a finished call waits for locks
	// (0: the backend's default).
	BusyTimeout time.Duration
}

// Store is o as the store's own options.
func (o Options) Store() store.Options {
	return store.Options{LeaseDuration: o.LeaseDuration, Now: o.Now, AuditKey: o.AuditKey, OldAuditKeys: o.OldAuditKeys, BusyTimeout: o.BusyTimeout}
}

// Database is one empty database made for one test.
type Database struct {
	// Open opens a new handle on the database. Handles share nothing but
	// the database, as separate processes would. The backend closes it
	// when the test ends.
	Open func(t testing.TB, o Options) store.Store
	// Exec runs raw SQL on the database, as someone editing it would (nil:
	// the tamper tests are skipped).
	Exec func(t testing.TB, query string, args ...any)
	// Lock holds the database's write lock from another connection, as a
	// second writer stuck in a long transaction would, until the returned
	// func is called (nil: the store_busy tests are skipped).
	Lock func(t testing.TB) (unlock func())
	// ReadyWrites says Ready takes the write lock Lock holds (SQLite's
	// Ready writes), so it answers store_busy while Lock holds too.
	ReadyWrites bool
	// LockAll holds every table in the strongest lock there is from another
	// connection (PostgreSQL: ACCESS EXCLUSIVE, which also stops reads), as
	// an operator's LOCK TABLE would, until the returned func is called
	// (nil: that test is skipped).
	LockAll func(t testing.TB) (unlock func())
}

// Backend makes a fresh empty Database for each test.
type Backend func(t testing.TB) Database

// Run runs the whole contract against b.
func Run(t *testing.T, b Backend) {
	for _, c := range []struct {
		name string
		fn   func(*testing.T, Backend)
	}{
		{"ClaimConcurrentOneHandle", testClaimConcurrentOneHandle},
		{"ClaimConcurrentThreeHandles", testClaimConcurrentThreeHandles},
		{"ClaimConflict", testClaimConflict},
		{"ClaimReleaseRunsAgain", testClaimReleaseRunsAgain},
		{"ClaimSurvivesReopen", testClaimSurvivesReopen},
		{"ClaimTTL", testClaimTTL},
		{"ClaimStaleLeaseTakenOver", testClaimStaleLeaseTakenOver},
		{"ClaimStaleLeaseRace", testClaimStaleLeaseRace},
		{"ClaimHeartbeatKeepsLease", testClaimHeartbeatKeepsLease},
		{"ClaimWaitCancelled", testClaimWaitCancelled},
		{"CompleteAfterCancelStillStores", testCompleteAfterCancelStillStores},
		{"AuditChainConcurrentWriters", testAuditChainConcurrentWriters},
		{"AuditTamper", testAuditTamper},
		{"AuditExportRoundTrip", testAuditExportRoundTrip},
		{"AuditKeyedChain", testAuditKeyedChain},
		{"AuditKeyMigration", testAuditKeyMigration},
		{"AuditKeyRotation", testAuditKeyRotation},
		{"AuditAnchor", testAuditAnchor},
		{"ReadyOnAHealthyStore", testReadyHealthy},
		{"LockedStoreAnswersBusy", testLockedStoreAnswersBusy},
		{"AccessExclusiveLockAnswersBusy", testAccessExclusiveLockAnswersBusy},
		{"ReplacedStoreIsUnavailable", testReplacedStoreIsUnavailable},
		{"ClosedStoreIsUnavailable", testClosedStoreIsUnavailable},
		{"Grants", testGrants},
		{"TraceRoundTrip", testTraceRoundTrip},
		{"ListTraces", testListTraces},
		{"EnvReserveLimits", testEnvReserveLimits},
		{"EnvLeases", testEnvLeases},
		{"EnvClose", testEnvClose},
		{"Sessions", testSessions},
		{"Handoffs", testHandoffs},
		{"PublishedEnvs", testPublishedEnvs},
		{"Fingerprints", testFingerprints},
		{"EnvTemporaryLostClosed", testEnvTemporaryLostClosed},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, b) })
	}
}

// PostgresEnv names the variable holding the URL of a PostgreSQL database
// that tests may create schemas in.
const PostgresEnv = "TOOLWRIGHT_TEST_PG"

// PostgresURL is $TOOLWRIGHT_TEST_PG. When it is unset the test is skipped,
// except in CI (CI=true), where PostgreSQL tests must run and the test fails.
func PostgresURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(PostgresEnv)
	if u == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: CI must run the PostgreSQL tests (.ci/run starts one with examples/scale/pg.sh)", PostgresEnv)
		}
		t.Skipf("%s is not set (examples/scale/pg.sh start DIR PORT prints a URL)", PostgresEnv)
	}
	return u
}
