//go:build unix

package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/toolwright/toolwright/engine/store"
)

// clientEnv makes the test binary act as another SQLite client of the
// database (an operator's sqlite3, a backup job): it counts the audit rows,
// closes, and says whether another process still holds SQLite's shared
// lock on the file.
const clientEnv = "TOOLWRIGHT_SQLITE_CLIENT_DB"

// SQLite's shared lock range on a database file (os_unix.c: SHARED_FIRST
// is PENDING_BYTE+2, SHARED_SIZE 510). A connection to a WAL database holds
// a read lock on it for as long as it is open; a client that closes and
// finds nobody holding it takes itself for the last connection,
// checkpoints and deletes the WAL.
const (
	sqliteSharedFirst = 0x40000000 + 2
	sqliteSharedSize  = 510
)

// TestHelperSQLiteClient is not a test: it is the body of the other
// client in TestAnotherSQLiteClientLosesNothing.
func TestHelperSQLiteClient(t *testing.T) {
	path := os.Getenv(clientEnv)
	if path == "" {
		t.Skip("helper process only")
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM audit`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	fmt.Println(n, sharedLockHolder(t, path))
}

// sharedLockHolder asks the kernel (F_GETLK, which takes no lock) which
// process holds a lock on SQLite's shared range of the file: 0 when none.
func sharedLockHolder(t *testing.T, path string) int32 {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: sqliteSharedFirst, Len: sqliteSharedSize}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_GETLK, &lk); err != nil {
		t.Fatal(err)
	}
	if lk.Type == syscall.F_UNLCK {
		return 0
	}
	return lk.Pid
}

// otherClient runs one read by another process: what it counted, and the
// process that held SQLite's shared lock after it closed.
func otherClient(t *testing.T, path string) (n int, holder int32) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperSQLiteClient$", "-test.count=1")
	cmd.Env = append(os.Environ(), clientEnv+"="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the other client: %v\n%s", err, out)
	}
	line, _, _ := strings.Cut(string(out), "\n")
	if _, err := fmt.Sscan(line, &n, &holder); err != nil {
		t.Fatalf("the other client printed %q", out)
	}
	return n, holder
}

// The store's check before every call must never drop the locks SQLite
// holds on the database file: on Linux, closing any descriptor of a file
// drops every POSIX lock the process holds on it, and another client that
// then closes takes itself for the last one, checkpoints and deletes the
// WAL the server goes on writing into. Before the fix the check opened and
// closed the file: the other client found no lock held, the sqlite3 shell
// deleted the WAL, and the records written after its read were in a
// deleted file.
func TestAnotherSQLiteClientLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	path := filepath.Join(t.TempDir(), FileName)
	s := openT(t, func() (*DB, error) { return OpenSQLite(path, Options{}) })
	ctx := context.Background()
	call := func(i int) {
		t.Helper()
		if err := s.Ready(ctx); err != nil {
			t.Fatalf("call %d: ready: %v", i, err)
		}
		if err := s.AppendAudit(ctx, &store.AuditRecord{TaskID: fmt.Sprint("T-", i), Tool: "place_order", Code: "ok"}); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	const calls = 6
	for i := range calls / 2 {
		call(i)
	}
	n, holder := otherClient(t, path)
	if n != calls/2 || holder != int32(os.Getpid()) {
		t.Fatalf("the other client read %d records (want %d) and found the shared lock held by pid %d (want the server, %d): the server's SQLite lock was dropped",
			n, calls/2, holder, os.Getpid())
	}
	// The sqlite3 shell is the client operators use; its close is the one
	// that deleted the WAL before.
	if sh, err := exec.LookPath("sqlite3"); err == nil {
		if out, err := exec.Command(sh, path, "SELECT COUNT(*) FROM audit").CombinedOutput(); err != nil {
			t.Fatalf("sqlite3: %v\n%s", err, out)
		}
		if _, err := os.Stat(path + "-wal"); err != nil {
			t.Fatalf("the WAL is gone after the sqlite3 shell read the database: %v", err)
		}
	}
	for i := calls / 2; i < calls; i++ {
		call(i)
	}
	// What a restart would find: the file and the WAL at their paths, as a
	// new process reads them (the server's own cache does not count).
	if n, _ := otherClient(t, path); n != calls {
		t.Fatalf("a new process reads %d of %d records: the ones written after the other client's read were lost", n, calls)
	}
}
