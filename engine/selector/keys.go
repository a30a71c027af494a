package selector

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/lint"
)

// namedKeys are the named keys press accepts, by their KeyboardEvent.key.
var namedKeys = map[string]input.Key{
	"Enter": input.Enter, "Tab": input.Tab, "Escape": input.Escape, "Backspace": input.Backspace,
	"Delete": input.Delete, "Space": input.Space, "Home": input.Home, "End": input.End,
	"PageUp": input.PageUp, "PageDown": input.PageDown, "ArrowUp": input.ArrowUp,
	"ArrowDown": input.ArrowDown, "ArrowLeft": input.ArrowLeft, "ArrowRight": input.ArrowRight,
	"Insert": input.Insert, "F1": input.F1, "F2": input.F2, "F3": input.F3, "F4": input.F4,
	"F5": input.F5, "F6": input.F6, "F7": input.F7, "F8": input.F8, "F9": input.F9,
	"F10": input.F10, "F11": input.F11, "F12": input.F12,
}

// modifierKeys are the keys a chord may hold down, and their CDP bits.
var modifierKeys = map[string]struct {
	key input.Key
	bit int
}{
	"Control": {input.ControlLeft, input.ModifierControl},
	"Shift":   {input.ShiftLeft, input.ModifierShift},
	"Alt":     {input.AltLeft, input.ModifierAlt},
	"Meta":    {input.MetaLeft, input.ModifierMeta},
}

// KeyNames are the named keys and the modifiers, sorted, for messages.
func KeyNames() []string {
	out := make([]string, 0, len(namedKeys)+len(modifierKeys))
	for k := range namedKeys {
		out = append(out, k)
	}
	for k := range modifierKeys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Keys is what one press sends: modifiers held down, then a key.
type Keys struct {
	Spec      string
	modifiers []string // held in this order, released in reverse
	key       string   // a named key, a modifier alone, or one character
}

// ParseKeys reads a press key: a named key (Enter), one character (j, /),
// or a chord of modifiers and one of those (Control+a, Shift+Tab,
// Meta+Shift+K). The error says what is wrong in an author's words.
func ParseKeys(spec string) (Keys, error) {
	k := Keys{Spec: spec}
	if spec == "" {
		return k, fmt.Errorf("the key is empty")
	}
	parts := []string{spec}
	if utf8.RuneCountInString(spec) > 1 {
		rest := spec
		if strings.HasSuffix(rest, "++") { // Control++: the + key
			parts = append(strings.Split(strings.TrimSuffix(rest, "++"), "+"), "+")
		} else {
			parts = strings.Split(rest, "+")
		}
	}
	last := parts[len(parts)-1]
	seen := map[string]bool{}
	for _, m := range parts[:len(parts)-1] {
		if _, ok := modifierKeys[m]; !ok {
			return k, fmt.Errorf("%q in %q is not a modifier: a chord holds Control, Shift, Alt or Meta, then one key (Control+a)%s", m, spec, suggest(m, modifierNames()))
		}
		if seen[m] {
			return k, fmt.Errorf("%q holds %s twice", spec, m)
		}
		seen[m] = true
		k.modifiers = append(k.modifiers, m)
	}
	switch {
	case last == "":
		return k, fmt.Errorf("%q ends with +: name the key after the modifiers (Control+a)", spec)
	case utf8.RuneCountInString(last) == 1:
	default:
		_, named := namedKeys[last]
		_, mod := modifierKeys[last]
		if !named && !mod {
			return k, fmt.Errorf("unknown key %q%s: a key is a named key (%s), one character (j, /) or a chord (Control+a, Shift+Tab)", last, suggest(last, KeyNames()), strings.Join(KeyNames(), ", "))
		}
	}
	k.key = last
	return k, nil
}

func modifierNames() []string { return []string{"Alt", "Control", "Meta", "Shift"} }

// suggest is " (did you mean X?)" for a near name, case aside (ctrl: Control).
func suggest(s string, names []string) string {
	for _, n := range names {
		if strings.EqualFold(n, s) || (len(s) > 2 && strings.HasPrefix(strings.ToLower(n), strings.ToLower(s))) {
			return fmt.Sprintf(" (did you mean %q?)", n)
		}
	}
	return lint.Suggest(s, names)
}

// events are the CDP key events of the press, in order: each modifier
// down, the key down and up, the modifiers up. A character produces its
// keydown, keypress and input (text) like a person's key; held Control,
// Alt or Meta make it a shortcut (no text), as on a real keyboard.
func (k Keys) events() []*proto.InputDispatchKeyEvent {
	var out []*proto.InputDispatchKeyEvent
	mods := 0
	for _, m := range k.modifiers {
		mk := modifierKeys[m]
		mods |= mk.bit
		out = append(out, keyEvent(mk.key.Info(), proto.InputDispatchKeyEventTypeRawKeyDown, mods, ""))
	}
	var info input.KeyInfo
	text := ""
	if nk, ok := namedKeys[k.key]; ok {
		info = nk.Info()
		if k.key == "Enter" {
			text = "\r"
		} else if k.key == "Space" {
			text = " "
		}
	} else if mk, ok := modifierKeys[k.key]; ok {
		info = mk.key.Info()
	} else {
		r, _ := utf8.DecodeRuneInString(k.key)
		key := input.Key(r)
		if mods&input.ModifierShift != 0 {
			if s, ok := key.Shift(); ok {
				key = s
			}
		}
		info = keyInfo(key, k.key)
		text = info.Key
	}
	if mods&(input.ModifierControl|input.ModifierAlt|input.ModifierMeta) != 0 {
		text = ""
	}
	down := proto.InputDispatchKeyEventTypeKeyDown
	if text == "" {
		down = proto.InputDispatchKeyEventTypeRawKeyDown
	}
	out = append(out, keyEvent(info, down, mods, text), keyEvent(info, proto.InputDispatchKeyEventTypeKeyUp, mods, ""))
	for i := len(k.modifiers) - 1; i >= 0; i-- {
		mk := modifierKeys[k.modifiers[i]]
		mods &^= mk.bit
		out = append(out, keyEvent(mk.key.Info(), proto.InputDispatchKeyEventTypeKeyUp, mods, ""))
	}
	return out
}

// keyInfo is a character's key on a US keyboard, or the character alone
// (no code) for one that keyboard has no key for.
func keyInfo(k input.Key, char string) (info input.KeyInfo) {
	defer func() {
		if recover() != nil {
			info = input.KeyInfo{Key: char}
		}
	}()
	return k.Info()
}

func keyEvent(info input.KeyInfo, t proto.InputDispatchKeyEventType, mods int, text string) *proto.InputDispatchKeyEvent {
	e := &proto.InputDispatchKeyEvent{
		Type: t, Key: info.Key, Code: info.Code, WindowsVirtualKeyCode: info.KeyCode,
		NativeVirtualKeyCode: info.KeyCode, Modifiers: mods, Text: text, UnmodifiedText: text,
	}
	if info.Location == 1 || info.Location == 2 {
		loc := info.Location
		e.Location = &loc
	}
	return e
}

// dispatch sends the press to page in ctx: its key events in order, each
// but the last without waiting for its answer (see Unanswered); the last
// one's answer comes once the page handled them all. Once the first is
// sent the press is the page's, as a click's (see press): the rest are
// sent and answered in answer (Outlasting ctx), and a page still handling
// them when answer ends has had the press all the same.
func (k Keys) dispatch(ctx, answer context.Context, page *rod.Page) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	evs := k.events()
	ahead := page.Context(Unanswered(answer))
	for i, e := range evs {
		p := ahead
		if i == len(evs)-1 {
			p = page.Context(answer)
		}
		if err := e.Call(p); err != nil {
			if answer.Err() != nil && i > 0 {
				return nil
			}
			return err
		}
	}
	return nil
}

// submits reports whether the press may send a form: Enter alone, in a
// field, sends the field's form (implicit submission).
func (k Keys) submits() bool { return k.key == "Enter" && len(k.modifiers) == 0 }

// pressIn sends the press to el, focused (did says so in messages: "Enter
// was pressed in target X"). An Enter that the browser answered by not
// sending el's form (its own check of the fields stopped it) fails as a
// click on the form's submit button does.
func (k Keys) pressIn(ctx context.Context, page *rod.Page, el *proto.RuntimeRemoteObject, did string) error {
	actx, cancel := Outlasting(ctx)
	defer cancel()
	if err := k.dispatch(ctx, actx, page); err != nil || !k.submits() || actx.Err() != nil {
		return err
	}
	res, err := evalOp(page.Context(actx), el, "unsent", map[string]any{}, true, false)
	if err != nil {
		return nil // the page went on to another document: the form was sent
	}
	return unsentErr(res.Value, did)
}

// PressKeys sends the press to the page's focused element. An Enter there
// is judged as one pressed in a target: the form the browser did not send
// fails invalid_params, and a submit the page held back is watched for the
// step's navigation watch (page.js op "focused").
func PressKeys(ctx context.Context, page *rod.Page, k Keys) error {
	if k.submits() {
		el, err := evalOp(page.Context(ctx), nil, "focused", map[string]any{}, false, false)
		if err != nil {
			return err
		}
		if el.Subtype == proto.RuntimeRemoteObjectSubtypeNode {
			defer func() { _ = page.Release(el) }()
			return k.pressIn(ctx, page, el, "Enter was pressed")
		}
	}
	actx, cancel := Outlasting(ctx)
	defer cancel()
	return k.dispatch(ctx, actx, page)
}
