// Package all imports the built-in store backends, each of which
// registers itself (store.Register): sqlite (an empty store.url) and
// postgres. A binary that opens a store imports it (engine/app does); a
// new backend is one folder beside them and one import line here.
package all

import (
	_ "github.com/toolwright/toolwright/engine/store/postgres"
	_ "github.com/toolwright/toolwright/engine/store/sqlite"
)
