package policy

import (
	"encoding/base64"
	"encoding/json"
	"html"
	"net/url"
	"strings"
	"testing"
)

// dangerous is the alphabet secrets are drawn from: every character some
// encoder treats specially, plus letters and digits.
const dangerous = " !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~\t\n\r\u00a0é€😀" + "aZ09"

// secretFrom maps fuzz bytes onto the dangerous alphabet.
func secretFrom(b []byte) string {
	rs := []rune(dangerous)
	var s strings.Builder
	for _, c := range b {
		s.WriteRune(rs[int(c)%len(rs)])
	}
	return s.String()
}

// referenceForms are encodings made by independent encoders (the standard
// library), next to the redactor's own list.
func referenceForms(v string) map[string]string {
	j, _ := json.Marshal(v)
	out := map[string]string{
		"QueryEscape": url.QueryEscape(v), "PathEscape": url.PathEscape(v),
		"html.EscapeString": html.EscapeString(v), "json.Marshal": string(j[1 : len(j)-1]),
		"base64 std": base64.StdEncoding.EncodeToString([]byte(v)), "base64 raw": base64.RawStdEncoding.EncodeToString([]byte(v)),
		"base64 url": base64.URLEncoding.EncodeToString([]byte(v)), "base64 raw url": base64.RawURLEncoding.EncodeToString([]byte(v)),
		"url.URL path": (&url.URL{Path: v}).EscapedPath(), "url.URL fragment": (&url.URL{Fragment: v}).EscapedFragment(),
		"url.UserPassword": url.UserPassword("u", v).String()[2:], "url.User": url.User(v).String(),
	}
	for i, f := range forms(v) {
		out["form "+itoa(i)] = f
	}
	return out
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// FuzzRedactEncodings draws a secret from the dangerous alphabet and checks
// that no encoded form of it survives redaction, alone or inside text, and
// with a second secret that overlaps it.
func FuzzRedactEncodings(f *testing.F) {
	f.Add([]byte("hunter2 &<x>"), []byte("ab"), uint8(0))
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, []byte{1, 2}, uint8(1))
	f.Add([]byte{40, 41, 42, 43, 44, 45, 46, 47}, []byte{}, uint8(2))
	f.Fuzz(func(t *testing.T, a, b []byte, mode uint8) {
		if len(a) < 4 || len(a) > 64 || len(b) > 64 {
			return
		}
		s1, s2 := secretFrom(a), secretFrom(b)
		secrets := map[string]string{"pw": s1}
		switch mode % 3 {
		case 1:
			secrets["other"] = s2 // unrelated
		case 2:
			secrets["other"] = s1[:len(s1)/2] + s2 // shares a prefix
		}
		r := NewRedactor(secrets)
		for how, e := range referenceForms(s1) {
			if e == "" {
				continue
			}
			got := r.Redact("\x01" + e + "\x02")
			// a form may contain the other secret's value: it is then
			// redacted (partly) under that name, which is fine, as long
			// as the form itself is gone.
			rest := strings.NewReplacer("[redacted:pw]", "\x00", "[redacted:other]", "\x00").Replace(got)
			if strings.Contains(rest, e) && !strings.Contains("[redacted:pw][redacted:other]", e) {
				t.Fatalf("secret %q: %s form %q survives: %q", s1, how, e, got)
			}
			if mode%3 == 0 && got != "\x01[redacted:pw]\x02" {
				t.Fatalf("secret %q: %s form %q redacted to %q", s1, how, e, got)
			}
		}
	})
}
