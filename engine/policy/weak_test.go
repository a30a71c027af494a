package policy

import (
	"strings"
	"testing"
)

// TestWeakSecretWarnings: a redacted secret shorter than 8 characters or
// made of one common word is warned about by name and length, never by
// value; a long, uncommon value is not.
func TestWeakSecretWarnings(t *testing.T) {
	got := WeakSecretWarnings(map[string]string{
		"wp_user":  "admin",
		"role":     "Administrator",
		"pin":      "4711",
		"password": "correct-horse-battery",
		"empty":    "",
	})
	if len(got) != 3 {
		t.Fatalf("warnings: %q", got)
	}
	for i, want := range []string{`secret "pin" is only 4 characters long`, `secret "role" is one common word`, `secret "wp_user" is one common word`} {
		if !strings.HasPrefix(got[i], want) || !strings.Contains(got[i], "redact: false") {
			t.Errorf("warning %d = %q, want %q… naming redact: false", i, got[i], want)
		}
		for _, v := range []string{"admin", "Administrator", "4711"} {
			if strings.Contains(got[i], `"`+v+`"`) || strings.Contains(got[i], " "+v+" ") {
				t.Errorf("warning %q holds a value", got[i])
			}
		}
	}
}
