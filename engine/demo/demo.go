// Package demo serves the Acme demo site (examples/demo/site): the site of
// `toolwright demo`, of `toolwright test`'s served folders, of the benchmarks and of
// the browser tests.
package demo

import (
	"fmt"
	"io/fs"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Handler serves the static files of fsys and the dynamic pages:
//
//	/slow?ms=N                   a page sent after N ms (at most 30s; stops when the request does)
//	/redirect?to=URL             302 to URL
//	/setcookie?name=N&value=V    sets a cookie (path=/); with &next=/path, then 302 there
//	/cookies                     the request's cookies, one "name=value" a line
//	/status?code=N               a small page with status N
func Handler(fsys fs.FS) http.Handler {
	mux := http.NewServeMux()
	files := http.FileServer(http.FS(fsys))
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		files.ServeHTTP(w, r)
	}))
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		ms, _ := strconv.Atoi(r.URL.Query().Get("ms"))
		d := min(max(time.Duration(ms)*time.Millisecond, 0), 30*time.Second)
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-r.Context().Done():
			return
		case <-timer.C:
		}
		page(w, http.StatusOK, "Slow page", fmt.Sprintf(`<p id="slow">waited %d ms</p>`, d.Milliseconds()))
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		to := r.URL.Query().Get("to")
		if to == "" {
			http.Error(w, "missing ?to=", http.StatusBadRequest)
			return
		}
		http.Redirect(w, r, to, http.StatusFound)
	})
	mux.HandleFunc("/setcookie", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		name := q.Get("name")
		if name == "" {
			http.Error(w, "missing ?name=", http.StatusBadRequest)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: name, Value: q.Get("value"), Path: "/"})
		if next := q.Get("next"); strings.HasPrefix(next, "/") && !strings.HasPrefix(next, "//") {
			http.Redirect(w, r, next, http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "cookie %s set\n", name)
	})
	mux.HandleFunc("/cookies", func(w http.ResponseWriter, r *http.Request) {
		var lines []string
		for _, c := range r.Cookies() {
			lines = append(lines, c.Name+"="+c.Value)
		}
		sort.Strings(lines)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
	})
	mux.HandleFunc("/status", func(w http.ResponseWriter, r *http.Request) {
		code, err := strconv.Atoi(r.URL.Query().Get("code"))
		if err != nil || code < 200 || code > 599 {
			http.Error(w, "?code= must be 200..599", http.StatusBadRequest)
			return
		}
		page(w, code, fmt.Sprintf("Status %d", code), fmt.Sprintf(`<p id="status">status %d</p>`, code))
	})
	return mux
}

func page(w http.ResponseWriter, code int, title, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	fmt.Fprintf(w, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title></head>\n<body><h1>%s</h1>%s</body></html>\n", title, title, body)
}
