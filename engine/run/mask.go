package run

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/toolwright/toolwright/engine/selector"
)

// maskJS hides, for a screenshot, every form field whose value holds a
// secret and every element whose text does (the innermost ones, with their
// descendants), and every element the engine marked as one it typed a
// secret into (selector.SecretMark, with its descendants: its value may
// have been rewritten past recognition, or be an editor's text), in the
// document and its open shadow roots. It runs in an
// isolated world, so the page's own scripts see neither the secrets nor
// the functions used to look for them; the world keeps what it changed
// for unmaskJS.
const maskJS = `function (secrets, mark) {
	const forms = [];
	for (const s of secrets) {
		forms.push(s, encodeURIComponent(s), JSON.stringify(s).slice(1, -1));
	}
	const has = (t) => typeof t === "string" && t !== "" && forms.some((f) => f !== "" && t.includes(f));
	const changed = [];
	const hide = (el) => {
		changed.push([el, el.style.getPropertyValue("visibility"), el.style.getPropertyPriority("visibility")]);
		el.style.setProperty("visibility", "hidden", "important");
	};
	const hideAll = (el) => {
		hide(el);
		for (const d of el.querySelectorAll("*")) hide(d);
	};
	const visit = (root) => {
		for (const el of root.querySelectorAll("*")) {
			if (el.shadowRoot) visit(el.shadowRoot);
			if (el.hasAttribute(mark)) {
				hideAll(el);
				continue;
			}
			const tag = el.tagName;
			if ((tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") && (has(el.value) || el.type === "password")) {
				hide(el);
				continue;
			}
			if (tag === "SCRIPT" || tag === "STYLE" || !has(el.textContent)) continue;
			// innermost: no child element holds the whole secret by itself
			if (![...el.children].some((c) => has(c.textContent))) hideAll(el);
		}
	};
	visit(document);
	globalThis.__toolwrightMasked = changed;
	return changed.length;
}`

const unmaskJS = `function () {
	for (const [el, v, p] of (globalThis.__toolwrightMasked || []).reverse()) {
		if (v) el.style.setProperty("visibility", v, p); else el.style.removeProperty("visibility");
	}
	globalThis.__toolwrightMasked = [];
}`

// maskWorld is the isolated world the mask runs in.
const maskWorld = "toolwright-mask"

// maskSecrets hides every element of page's frames showing one of secrets,
// or marked as typed a secret into (see maskJS), and returns how to show
// them again. It runs with no secrets too: a mark needs no value. It fails
// closed: when a frame cannot be masked the error says so and nothing
// should be captured.
func maskSecrets(ctx context.Context, page *rod.Page, secrets []string) (restore func(), err error) {
	page = page.Context(ctx)
	tree, err := proto.PageGetFrameTree{}.Call(page)
	if err != nil {
		return func() {}, err
	}
	var frames []proto.PageFrameID
	var walk func(t *proto.PageFrameTree)
	walk = func(t *proto.PageFrameTree) {
		frames = append(frames, t.Frame.ID)
		for _, c := range t.ChildFrames {
			walk(c)
		}
	}
	walk(tree.FrameTree)
	if secrets == nil {
		secrets = []string{} // JSON [], not null
	}
	arg, _ := json.Marshal(secrets)
	mark, _ := json.Marshal(selector.SecretMark)
	var worlds []proto.RuntimeExecutionContextID
	restore = func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), failureCaptureMax)
		defer cancel()
		for _, w := range worlds {
			_, _ = proto.RuntimeCallFunctionOn{FunctionDeclaration: unmaskJS, ExecutionContextID: w}.Call(page.Context(rctx))
		}
	}
	for _, f := range frames {
		w, err := proto.PageCreateIsolatedWorld{FrameID: f, WorldName: maskWorld}.Call(page)
		if err != nil {
			continue // a frame that went away meanwhile (or lives in another process)
		}
		res, err := proto.RuntimeCallFunctionOn{
			FunctionDeclaration: "function () { return (" + maskJS + ")(" + string(arg) + ", " + string(mark) + "); }",
			ExecutionContextID:  w.ExecutionContextID,
		}.Call(page)
		if err == nil && res.ExceptionDetails != nil {
			err = errMask
		}
		if err != nil {
			restore()
			return func() {}, err
		}
		worlds = append(worlds, w.ExecutionContextID)
	}
	return restore, nil
}

// secretValues are the configured secret values, longest first.
func (e *Engine) secretValues() []string {
	var out []string
	for _, v := range e.cfg.RedactedValues() {
		if v != "" {
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

var errMask = maskError("the page could not be prepared for a screenshot")

type maskError string

func (e maskError) Error() string { return string(e) }
