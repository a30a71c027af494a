package main

import (
	"strings"
	"testing"

	"github.com/toolwright/toolwright/internal/testsite"
)

func TestSelectorsSuggest(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	out, errOut, code := cli(t, "selectors", "suggest", "--page", repoPath(t, "testdata", "suggest", "form.html"), "--prefix", "shop.signup")
	if code != 0 {
		t.Fatalf("code %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"shop.signup.email_address:\n  description: field \"Email address\"\n  css: '#email'\n  fallbacks:\n    - label: Email address\n", "shop.signup.pay_now:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, _, code := cli(t, "selectors", "suggest"); code != 2 {
		t.Errorf("no --page: code %d, want 2 (usage)", code)
	}
}
