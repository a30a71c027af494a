package record

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/selsuggest"
)

func field(id, label string, password bool) *Element {
	return &Element{Element: selsuggest.Element{Kind: "field", Tag: "input", ID: id, Label: label,
		Cands: []selector.Locator{{Strategy: selector.CSS, Value: "#" + id}, {Strategy: selector.Label, Value: label}}}, Password: password}
}

// TestDraftPasswordWithoutSecret: a password that matches no configured
// secret stops the draft, naming a secret to add, and its value is in no
// message.
func TestDraftPasswordWithoutSecret(t *testing.T) {
	rec := &Recording{Events: []*Event{{K: "fill", El: field("pw", "Password", true), Value: "hunter2-Secret!", T: 1}}}
	_, err := MakeDraft(rec, DraftOptions{Name: "sign_in", Prefix: "acme.login", StartURL: "http://127.0.0.1:1/login", Secrets: map[string]string{"other": "x-value-123"}})
	var need *SecretNeeded
	if !errors.As(err, &need) || need.Secret != "acme_login_password" || !strings.Contains(err.Error(), `"Password"`) {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("the message holds the password: %v", err)
	}
}

// TestDraftValues: text equal to a secret's value (in any field) is the
// secret by name; other text is a bounded parameter; a select's options
// are its parameter's enum; a URL under a config var is written with it
// and loses its per-session tokens.
func TestDraftValues(t *testing.T) {
	sel := &Element{Element: selsuggest.Element{Kind: "field", Tag: "select", Name: "size", Label: "Size",
		Cands: []selector.Locator{{Strategy: selector.CSS, Value: `select[name="size"]`}}}}
	rec := &Recording{Events: []*Event{
		{K: "fill", El: field("user", "User", false), Value: "ops@example.com", T: 1},
		{K: "fill", El: field("q", "Search", false), Value: "lamp", T: 2},
		{K: "select", El: sel, Value: "m", Options: []Option{{"s", "Small"}, {"m", "Medium"}}, T: 3},
		{K: "nav", URL: "http://127.0.0.1:8000/list?sid=abc123&page=2", T: 10000},
	}}
	d, err := MakeDraft(rec, DraftOptions{Name: "find", Prefix: "acme.find", StartURL: "http://127.0.0.1:8000/search?csrf=9f8e7d6c5b4a",
		Secrets: map[string]string{"acme_user": "ops@example.com"}, Vars: map[string]any{"acme_base": "http://127.0.0.1:8000"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"goto: ${{ config.acme_base }}/search\n",
		"value: '${{ secrets.acme_user }}'",
		"search: {type: string, description: The text typed into \"Search\", max_length: 200, required: true}",
		"size: {type: string, description: The option to choose in \"Size\", enum: [s, m], required: true}",
		"goto: ${{ config.acme_base }}/list?page=2",
	} {
		if !strings.Contains(d.Workflow, w) {
			t.Errorf("workflow lacks %q:\n%s", w, d.Workflow)
		}
	}
	if strings.Contains(d.Workflow+d.Test, "ops@example.com") {
		t.Errorf("a secret's value was written")
	}
	if d.Args["search"] != "lamp" || d.Args["size"] != "m" || len(d.Args) != 2 {
		t.Errorf("args %v", d.Args)
	}
}
