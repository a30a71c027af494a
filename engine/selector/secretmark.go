package selector

import (
	"context"

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

// markJS marks this element and the deepest focused element of its
// document (through open shadow roots) when that is not the body.
const markJS = `function (mark) {
	const set = (e) => { if (e && e.nodeType === 1) e.setAttribute(mark, ""); };
	set(this);
	const doc = this.ownerDocument;
	let a = doc && doc.activeElement;
	while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
	if (a && a !== doc.body && a !== doc.documentElement) set(a);
}`

// markSecret marks el (focused already) as holding a secret; see
// SecretMark. It runs before the text is typed, so no frame of the live
// view shows it unmasked.
func markSecret(p *rod.Page, el *proto.RuntimeRemoteObject) error {
	_, err := p.Evaluate(&rod.EvalOptions{JS: markJS, ThisObj: el, JSArgs: []any{SecretMark}})
	return err
}

// MarkSecret marks the readied element as the one a secret is typed into
// (see SecretMark); call it before Fill.
func (t *Typing) MarkSecret(ctx context.Context) error {
	if t.set || t.el == nil {
		return nil // a picker's value, set by the page: nothing is typed
	}
	return markSecret(t.page.Context(ctx), t.el)
}
