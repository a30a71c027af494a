// Package postgres is the store backend of a postgres:// (or
// postgresql://) store.url: a PostgreSQL database that several replicas
// share, reached through pgx's database/sql driver. Its SQL is sqlstore's,
// shared with SQLite.
package postgres

import (
	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/store/sqlstore"
)

// Name is the backend's name.
const Name = "postgres"

func init() {
	store.Register(store.Backend{Name: Name, Schemes: []string{"postgres", "postgresql"},
		URL: "postgres://user:pass@host:5432/db", Doc: "a PostgreSQL database that several replicas share", Open: Open})
}

// Open connects to the database at url
// (postgres://user:pass@host:5432/db?sslmode=...; any other pgx connection
// parameter such as search_path may be added to the query) and migrates
// its schema.
func Open(url, _ string, o store.Options) (store.Store, error) {
	db, err := sqlstore.OpenPostgres(url, o)
	if err != nil {
		return nil, err // not a typed nil
	}
	return db, nil
}
