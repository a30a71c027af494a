package selector

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// maxReason bounds the reason a refusal's message quotes.
const maxReason = 200

// Reason is what the server said when it refused f (its answer's body):
// the application's own message, as an API or a form handler writes it
// ({"message": ...}, {"errors": {"title": ["can't be blank"]}}, a line of
// text); "" when the answer is a page (HTML), empty, or gone.
func Reason(ctx context.Context, page *rod.Page, f Refusal) string {
	if f.id == "" {
		return ""
	}
	res, err := proto.NetworkGetResponseBody{RequestID: f.id}.Call(page.Context(ctx))
	if err != nil {
		return ""
	}
	body := res.Body
	if res.Base64Encoded {
		b, err := base64.StdEncoding.DecodeString(body)
		if err != nil {
			return ""
		}
		body = string(b)
	}
	return reasonOf(body)
}

// reasonOf is Reason's reading of an answer's body.
func reasonOf(body string) string {
	body = strings.TrimSpace(body)
	if body == "" || strings.HasPrefix(body, "<") {
		return ""
	}
	var v any
	if json.Unmarshal([]byte(body), &v) == nil {
		return clipTo(strings.Join(strings.Fields(said(v, 0)), " "), maxReason)
	}
	line, _, _ := strings.Cut(body, "\n")
	return clipTo(strings.Join(strings.Fields(line), " "), maxReason)
}

// said finds the message in a decoded JSON answer: the first of the keys
// APIs use for it (message, error, errors, detail, title, msg), a list's
// first message, or a map of fields to their messages ("title: can't be
// blank"), a few levels deep.
func said(v any, depth int) string {
	if depth > 4 {
		return ""
	}
	switch x := v.(type) {
	case string:
		return x
	case []any:
		for _, e := range x {
			if s := said(e, depth+1); s != "" {
				return s
			}
		}
	case map[string]any:
		for _, k := range []string{"message", "error", "errors", "detail", "title", "msg", "error_description"} {
			if _, text := x[k].(string); !text && k != "message" && k != "error" && k != "errors" {
				continue // a field of that name with its messages ({"title": ["can't be blank"]})
			}
			if s := said(x[k], depth+1); s != "" {
				return s
			}
		}
		// A map of fields to their messages (Rails, Django REST).
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			if s := said(x[k], depth+1); s != "" {
				parts = append(parts, fmt.Sprintf("%s: %s", k, s))
			}
		}
		return strings.Join(parts, "; ")
	}
	return ""
}
