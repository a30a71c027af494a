package selector

import (
	"strings"
	"testing"
)

// TestParseKeys: named keys, one character and chords are taken; anything
// else is refused with a message that says what a key may be.
func TestParseKeys(t *testing.T) {
	for _, ok := range []string{"Enter", "j", "/", "?", "K", "é", "+", "Control+a", "Shift+Tab", "Meta+Shift+K", "Control++", "Alt+F4", "Shift"} {
		if _, err := ParseKeys(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for bad, want := range map[string]string{
		"Entr":              `unknown key "Entr"`,
		"":                  "empty",
		"Ctrl+a":            `"Ctrl" in "Ctrl+a" is not a modifier`,
		"Control+":          "ends with +",
		"Control+Control+a": "holds Control twice",
		"Control+ab":        `unknown key "ab"`,
	} {
		_, err := ParseKeys(bad)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", bad, err, want)
		}
	}
	// A chord holds its modifiers: Control+a sends no text; Shift+k is K.
	ev := mustKeys(t, "Control+a").events()
	if len(ev) != 4 || ev[1].Key != "a" || ev[1].Text != "" || ev[1].Modifiers != 2 {
		t.Errorf("Control+a: %+v", ev[1])
	}
	ev = mustKeys(t, "Shift+k").events()
	if ev[1].Key != "K" || ev[1].Text != "K" || ev[1].Code != "KeyK" {
		t.Errorf("Shift+k: %+v", ev[1])
	}
}

func mustKeys(t *testing.T, s string) Keys {
	k, err := ParseKeys(s)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// tabKey is the Tab key, for the request counts of a press.
var tabKey, _ = ParseKeys("Tab")
