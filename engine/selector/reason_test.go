package selector

import "testing"

// TestReasonOf: a refused save's message quotes the application's own
// words from its answer, in the shapes APIs and form handlers write them;
// a page (HTML) or nothing quotes nothing.
func TestReasonOf(t *testing.T) {
	for body, want := range map[string]string{
		`{"message": "Title can't be blank"}`:                              "Title can't be blank",
		`{"error": {"code": 422, "message": "quota exceeded"}}`:            "quota exceeded",
		`{"errors": [{"detail": "name is taken"}]}`:                        "name is taken",
		`{"title": ["can't be blank"], "body": ["is too short"]}`:          "body: is too short; title: can't be blank",
		`{"code":"rest_forbidden","message":"Sorry, you are not allowed"}`: "Sorry, you are not allowed",
		"this file type is not allowed\nmore":                              "this file type is not allowed",
		"<!doctype html><title>Error</title>":                              "",
		"":                                                                 "",
		`[]`:                                                               "",
	} {
		if got := reasonOf(body); got != want {
			t.Errorf("reasonOf(%q) = %q, want %q", body, got, want)
		}
	}
}
