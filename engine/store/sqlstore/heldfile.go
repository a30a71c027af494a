package sqlstore

import (
	"fmt"
	"os"
	"sync"
)

// heldFile is a SQLite database file this process keeps one descriptor of
// for as long as any of its stores uses it. Ready reads the file's header
// through it (health.go).
//
// The descriptor is never opened and closed per check: on Linux (POSIX
// record locks) closing any descriptor of a file drops every lock the
// process holds on it, SQLite's included. Another client of the database
// (an operator's sqlite3, a backup job) that then closed took itself for
// the last connection, checkpointed and deleted the WAL, and the server
// went on writing into a deleted file. Stores of one process that open the
// same file share one descriptor, so closing one store does not drop the
// locks of another.
type heldFile struct {
	f    *os.File
	info os.FileInfo // the file as it was opened
	refs int
}

var held struct {
	mu    sync.Mutex
	files []*heldFile
}

// holdFile returns the descriptor this process holds on the database file
// at path, opening it (created 0600 when missing, so it is private to the
// user from the start) when no store holds it yet. Release it with release.
func holdFile(path string) (*heldFile, error) {
	held.mu.Lock()
	defer held.mu.Unlock()
	if now, err := os.Stat(path); err == nil {
		for _, h := range held.files {
			if os.SameFile(h.info, now) {
				h.refs++
				return h, nil
			}
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("store: open %q: %w", path, err)
	}
	info, err := f.Stat()
	if err != nil {
		// Nothing of SQLite's is open on a file no store holds, so this
		// close drops no lock.
		f.Close()
		return nil, fmt.Errorf("store: %q: %w", path, err)
	}
	h := &heldFile{f: f, info: info, refs: 1}
	held.files = append(held.files, h)
	return h, nil
}

// release gives the descriptor back; the last store to release it closes
// it, after its own SQLite connections are closed.
func (h *heldFile) release() {
	held.mu.Lock()
	defer held.mu.Unlock()
	if h.refs--; h.refs > 0 {
		return
	}
	for i, x := range held.files {
		if x == h {
			held.files = append(held.files[:i], held.files[i+1:]...)
			break
		}
	}
	h.f.Close()
}

// headerOK reports whether the file starts with SQLite's header, read
// through the held descriptor (one small read, before every call).
func (h *heldFile) headerOK() bool {
	b := make([]byte, len(sqliteHeader))
	_, err := h.f.ReadAt(b, 0)
	return err == nil && string(b) == sqliteHeader
}
