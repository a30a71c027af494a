// Package sqlite is the store backend of an empty store.url, the default:
// SQLite in one file, <state_dir>/toolwright.db, in WAL mode, so a running
// `toolwright serve` and a CLI command such as `toolwright grant` use it
// at the same time. Its SQL is sqlstore's, shared with PostgreSQL.
package sqlite

import (
	"errors"
	"path/filepath"

	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/store/sqlstore"
)

// Name is the backend's name.
const Name = "sqlite"

func init() {
	store.Register(store.Backend{Name: Name, Default: true, Doc: "SQLite in state_dir", Open: Open})
}

// Open opens (creating it when missing) the database in stateDir; url is
// empty.
func Open(_, stateDir string, o store.Options) (store.Store, error) {
	if stateDir == "" {
		return nil, errors.New("store: no store.url and no state_dir")
	}
	db, err := sqlstore.OpenSQLite(filepath.Join(stateDir, sqlstore.FileName), o)
	if err != nil {
		return nil, err // not a typed nil
	}
	return db, nil
}
