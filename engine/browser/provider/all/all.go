// Package all imports the built-in browser providers, each of which
// registers itself (package provider): local, cdp and webdriver. A binary
// that opens browsers imports it (engine/app does); a new provider is one
// folder beside them and one import line here.
package all

import (
	_ "github.com/toolwright/toolwright/engine/browser/provider/cdp"
	_ "github.com/toolwright/toolwright/engine/browser/provider/local"
	_ "github.com/toolwright/toolwright/engine/browser/provider/webdriver"
)
