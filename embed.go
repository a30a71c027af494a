// Package toolwright holds the files built into the binary: the default
// workflows and selector map, and the Acme demo (its site, workflows and
// selector map), so `toolwright demo` and `toolwright serve` work on a fresh
// machine with nothing else on disk. The engine lives in engine/.
package toolwright

import (
	"embed"
	"io/fs"
)

//go:embed workflows/*.yaml selectors/selectors.yaml
var defaults embed.FS

//go:embed examples/demo/site examples/demo/workflows/*.yaml examples/demo/selectors.yaml
var demo embed.FS

// Defaults holds workflows/*.yaml and selectors/selectors.yaml.
func Defaults() fs.FS { return defaults }

// DemoSite holds the pages of the Acme demo site (examples/demo/site; the
// product never embeds testdata/).
func DemoSite() fs.FS {
	sub, err := fs.Sub(demo, "examples/demo/site")
	if err != nil {
		panic(err) // the path is fixed at build time
	}
	return sub
}

// Demo holds workflows/*.yaml and selectors.yaml of the Acme demo.
func Demo() fs.FS {
	sub, err := fs.Sub(demo, "examples/demo")
	if err != nil {
		panic(err)
	}
	return sub
}
