package shoptest

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"strings"
)

// The server side of the fw*.html pages (issue 45): what their scripts
// ask for by request, each after ?ms= milliseconds.

// parts are the 25 parts of /api/parts.
var parts = func() []string {
	kinds := []string{"gear", "bolt", "nut", "spring", "valve"}
	var out []string
	for i := 0; i < 25; i++ {
		out = append(out, fmt.Sprintf("%s %02d", kinds[i%len(kinds)], i+1))
	}
	return out
}()

func (s *truthfulServer) followHandlers(mux *http.ServeMux) {
	// /api/parts?q=: the parts whose name holds q, as JSON.
	mux.HandleFunc("/api/parts", func(w http.ResponseWriter, r *http.Request) {
		if !pause(r, r.URL.Query().Get("ms")) {
			return
		}
		q := r.URL.Query().Get("q")
		found := []string{}
		for _, p := range parts {
			if strings.Contains(p, q) {
				found = append(found, p)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(found)
	})
	// /api/item: the one item of fwitem.html.
	mux.HandleFunc("/api/item", func(w http.ResponseWriter, r *http.Request) {
		if !pause(r, r.URL.Query().Get("ms")) {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"title": "Quarterly report", "status": "Published"}`)
	})
	// POST /upload: a file of fwupload.html, recorded; ?refuse=1: 422.
	mux.HandleFunc("/upload", func(w http.ResponseWriter, r *http.Request) {
		f, hdr, err := r.FormFile("file")
		if r.Method != http.MethodPost || err != nil {
			http.Error(w, "POST a file", http.StatusBadRequest)
			return
		}
		_, _ = io.Copy(io.Discard, f)
		if r.URL.Query().Get("refuse") != "" {
			http.Error(w, "this file type is not allowed", http.StatusUnprocessableEntity)
			return
		}
		s.mu.Lock()
		s.saved = append(s.saved, "upload "+hdr.Filename)
		s.mu.Unlock()
		fmt.Fprint(w, "ok")
	})
	// /posts/new and POST /posts: a server-rendered form as Rails renders
	// it: a post without a title is answered 200 with the form again and
	// an error box; one with a title is created (303 to the post).
	mux.HandleFunc("/posts/new", func(w http.ResponseWriter, r *http.Request) {
		postForm(w, "", "")
	})
	mux.HandleFunc("/posts", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.ParseForm() != nil {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		title := strings.TrimSpace(r.PostForm.Get("post[title]"))
		if title == "" {
			postForm(w, title, "Title can't be blank")
			return
		}
		s.mu.Lock()
		s.saved = append(s.saved, "post "+title)
		s.mu.Unlock()
		http.Redirect(w, r, "/saved?note="+title, http.StatusSeeOther)
	})
}

// postForm writes the new-post form, with the error box Rails' scaffold
// draws when problem is not empty.
func postForm(w http.ResponseWriter, title, problem string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	box, field := "", `<input id="post_title" name="post[title]" value="%s">`
	if problem != "" {
		box = fmt.Sprintf(`<div id="error_explanation"><h2>1 error prohibited this post from being saved:</h2><ul><li>%s</li></ul></div>`, html.EscapeString(problem))
		field = `<div class="field_with_errors">` + field + `</div>`
	}
	fmt.Fprintf(w, `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>New post</title></head><body><h1 id="heading">New post</h1>
<form id="new_post" action="/posts" method="post">%s
<label for="post_title">Title</label> `+field+`
<input type="submit" name="commit" value="Create Post"></form></body></html>
`, box, html.EscapeString(title))
}
