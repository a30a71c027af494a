package browser

import (
	"net/http"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/selector"
)

// TestTrafficSeesTheFirstNavigation: a call watches its page's traffic
// (selector.WatchTraffic) and often navigates at once. The page's events
// are followed from the start, so that navigation's document status and
// commit are known from the browser's events. Before, they were followed
// only once the Network domain had been enabled again (a request), and a
// navigation answered faster was missed: its status was then asked of the
// page (two more requests, on a page busy after load), and the read ahead
// of the extracts after a wait found no document mark.
func TestTrafficSeesTheFirstNavigation(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/gone", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("<p>gone</p>"))
	})
	mux.HandleFunc("/", html("<p>page</p>"))
	s := newSite(t, mux)
	m := newTestManager(t, Options{})
	env := mustOpen(t, m, "", "")
	defer m.Release(env)
	page := env.Page()
	// A call before this one enabled the Network domain, which stays on.
	stop := selector.WatchTraffic(page, env.Events(page))
	mustNavigate(t, env, s.URL+"/")
	stop()

	missed := 0
	const tries = 20
	for i := range tries {
		stop := selector.WatchTraffic(page, env.Events(page))
		path := "/"
		if i%2 == 1 {
			path = "/gone"
		}
		ctx := testCtx(t, time.Minute)
		before, _ := selector.DocumentMark(ctx, page)
		mustNavigate(t, env, s.URL+path)
		status := selector.DocumentStatus(ctx, page)
		after, ok := selector.DocumentMark(ctx, page)
		if want := map[string]int{"/": 200, "/gone": 404}[path]; status != want || !ok || after != before+1 {
			missed++
			t.Logf("try %d (%s): status %d (want %d), document mark %d → %d (%v)", i, path, status, want, before, after, ok)
		}
		stop()
	}
	if missed > 0 {
		t.Errorf("%d of %d navigations right after the traffic watch began were missed", missed, tries)
	}
}
