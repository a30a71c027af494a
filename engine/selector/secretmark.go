package selector

import (
	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// SecretMark is the attribute the engine puts, in the page, on an element
// it types a secret into (and on the element the typing lands in, when
// focus went further: an editor's inner node). The live view and the
// screenshot mask draw every marked element masked whatever it holds now,
// so masking needs no secret's value: a `toolwright ui` started without
// the service's secret variables cannot compare values, and a page's
// script may have rewritten the value (upper case, spaces, a mask's
// characters) or kept it as an editor's text, where no comparison finds it.
// An attribute, not a variable of some script world, so every world and
// every process attached to the browser sees it; it names no value.
const SecretMark = "data-toolwright-secret"

// markSecret marks el (focused already) as holding a secret, and the
// deepest element focused in its document (page.js op "secret"); see
// SecretMark. It runs before the text is typed, so no frame of the live
// view shows it unmasked. Map.Typing marks in its own call (TypingOptions.Secret).
func markSecret(p *rod.Page, el *proto.RuntimeRemoteObject) error {
	_, err := evalOp(p, el, "secret", map[string]any{"mark": SecretMark}, true, false)
	return err
}
