package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"sync"
	"testing"
	"time"
)

// TestPostgresConnectionsLost: the server ends every session of the store's
// pool (as a restart does) and the next call's check runs within the second
// in which pgx reuses a connection without pinging it. Ready answers nil,
// not store_unavailable, and the statements after it run on new
// connections. Before, Ready failed on the dead connection ("unexpected
// EOF" or 57P01), and a replica asked for a task_id right after a restart
// refused the call although PostgreSQL was up (TestPostgresStoppedMidWrite).
func TestPostgresConnectionsLost(t *testing.T) {
	base := pgURL(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	app := fmt.Sprintf("tw_lost_%d", time.Now().UnixNano())
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	s := openT(t, func() (*DB, error) { return OpenPostgres(u.String(), Options{Conns: 4}) })
	ctx := context.Background()

	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()

	for round := range 3 {
		// Fill the pool: four checks at once hold four connections.
		var wg sync.WaitGroup
		errc := make(chan error, 4)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errc <- s.Ready(ctx)
			}()
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			if err != nil {
				t.Fatalf("round %d: Ready before the sessions end: %v", round, err)
			}
		}
		rows, err := admin.Query(`SELECT pid FROM pg_stat_activity WHERE application_name = $1`, app)
		if err != nil {
			t.Fatal(err)
		}
		var pids []int
		for rows.Next() {
			var pid int
			if err := rows.Scan(&pid); err != nil {
				t.Fatal(err)
			}
			pids = append(pids, pid)
		}
		rows.Close()
		ended := 0
		for _, pid := range pids {
			var done bool
			if err := admin.QueryRow(`SELECT pg_terminate_backend($1, 5000)`, pid).Scan(&done); err != nil {
				t.Fatal(err)
			}
			if done {
				ended++
			}
		}
		if ended == 0 {
			t.Fatalf("round %d: no session of the store to end", round)
		}
		if err := s.Ready(ctx); err != nil {
			t.Fatalf("round %d: Ready right after %d sessions ended: %v", round, ended, err)
		}
		if _, err := s.Stats(ctx); err != nil {
			t.Fatalf("round %d: a read after the check: %v", round, err)
		}
	}
}
