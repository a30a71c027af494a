package selector

import (
	"fmt"
	"slices"
	"testing"

	"github.com/go-rod/rod/lib/proto"
)

// TestTrafficForgetsLeftDocuments: a request ends when the browser reports
// its end, or when the document that made it is gone. The browser does not
// always report the end of a request the page being left began (a wiki's
// edit stash): before, that request stayed in flight for ever, and the
// step after a click that navigated waited out its 15 s for it.
func TestTrafficForgetsLeftDocuments(t *testing.T) {
	tr := &Traffic{inflight: map[proto.NetworkRequestID]request{}, changed: make(chan struct{}), docs: map[proto.PageFrameID]document{}, live: true}
	send := func(method, params string) { tr.see(method, []byte(params)) }
	req := func(id, frame, loader, typ string) {
		send("Network.requestWillBeSent", fmt.Sprintf(`{"requestId":%q,"frameId":%q,"loaderId":%q,"type":%q}`, id, frame, loader, typ))
	}
	inflight := func() []string {
		var ids []string
		for id := range tr.inflight {
			ids = append(ids, string(id))
		}
		slices.Sort(ids)
		return ids
	}
	want := func(step string, ids ...string) {
		t.Helper()
		if got := inflight(); !slices.Equal(got, ids) {
			t.Fatalf("%s: in flight %q, want %q", step, got, ids)
		}
	}

	req("stash", "main", "L1", "Fetch")
	req("frame-xhr", "sub", "S1", "XHR")
	req("pic", "main", "L1", "Image") // not waited for
	want("started", "frame-xhr", "stash")
	req("L2", "main", "L2", "Document") // the navigation's own request
	req("L2", "main", "L2", "Document") // its redirect: the same request
	want("navigating", "L2", "frame-xhr", "stash")
	mark := tr.seq
	send("Page.frameNavigated", `{"frame":{"id":"main","loaderId":"L2"}}`)
	want("the main frame's next document committed", "L2", "frame-xhr")
	send("Page.frameDetached", `{"frameId":"sub","reason":"remove"}`)
	want("the old document's frame removed", "L2")
	send("Network.loadingFinished", `{"requestId":"L2"}`)
	want("the new document loaded")
	send("Network.loadingFailed", `{"requestId":"stash"}`) // late, for a request already forgotten
	want("a late end")
	if tr.seq != mark {
		t.Errorf("a redirect or an end counted as a start: seq %d, want %d", tr.seq, mark)
	}
}

// TestTrafficDocumentStatus: the status of a frame's document is the one
// the browser reported for the response it committed; unknown (0) before
// that document committed, for a 304, and for a frame never seen.
func TestTrafficDocumentStatus(t *testing.T) {
	tr := &Traffic{inflight: map[proto.NetworkRequestID]request{}, changed: make(chan struct{}), docs: map[proto.PageFrameID]document{}, live: true}
	send := func(method, params string) { tr.see(method, []byte(params)) }
	response := func(loader string, status int) {
		send("Network.responseReceived", fmt.Sprintf(`{"requestId":%q,"loaderId":%q,"frameId":"main","type":"Document","response":{"status":%d}}`, loader, loader, status))
	}
	commit := func(loader string) {
		send("Page.frameNavigated", fmt.Sprintf(`{"frame":{"id":"main","loaderId":%q}}`, loader))
	}
	want := func(step string, status int) {
		t.Helper()
		if got := tr.docs["main"].answered(); got != status {
			t.Errorf("%s: status %d, want %d", step, got, status)
		}
	}
	want("nothing seen", 0)
	response("L1", 200)
	want("answered, not committed", 0)
	commit("L1")
	want("committed", 200)
	response("L2", 404)
	want("the next document answered, not committed yet", 0)
	commit("L2")
	want("the next document committed", 404)
	send("Network.responseReceived", `{"requestId":"x","loaderId":"L2","frameId":"main","type":"Script","response":{"status":500}}`)
	want("a script of the document", 404)
	response("L3", 304)
	commit("L3")
	want("a 304", 0)
	send("Page.frameDetached", `{"frameId":"main"}`)
	want("detached", 0)
}

// TestTrafficRefusals: a request a page's script sent to change something
// (a fetch or XHR that is not a GET) and the server answered with an HTTP
// error is kept, by its start, with its method, path (no query) and
// status; a GET, a beacon, a success, a document are not; the latest
// maxRefused are kept.
func TestTrafficRefusals(t *testing.T) {
	tr := &Traffic{inflight: map[proto.NetworkRequestID]request{}, changed: make(chan struct{}), docs: map[proto.PageFrameID]document{}, live: true}
	send := func(method, params string) { tr.see(method, []byte(params)) }
	sent := func(id, typ, method, url string, status int) {
		send("Network.requestWillBeSent", fmt.Sprintf(`{"requestId":%q,"frameId":"main","loaderId":"L1","type":%q,"request":{"method":%q,"url":%q}}`, id, typ, method, url))
		send("Network.responseReceived", fmt.Sprintf(`{"requestId":%q,"frameId":"main","loaderId":"L1","type":%q,"response":{"status":%d}}`, id, typ, status))
		send("Network.loadingFinished", fmt.Sprintf(`{"requestId":%q}`, id))
	}
	want := func(step string, mark, until uint64, wantOK bool, want Refusal) {
		t.Helper()
		got, ok := tr.refusedSince(mark, until)
		if ok && got.id == "" {
			t.Errorf("%s: the refusal does not name its request (Reason reads its answer by it)", step)
		}
		got.n, got.id = 0, ""
		if ok != wantOK || got != want {
			t.Errorf("%s: refusal %+v (%v), want %+v (%v)", step, got, ok, want, wantOK)
		}
	}
	sent("get", "Fetch", "GET", "http://h/api/item", 404)       // 1: a look-up
	sent("beacon", "Ping", "POST", "http://h/count", 404)       // 2: a beacon
	sent("ok", "XHR", "POST", "http://h/save", 200)             // 3: saved
	sent("doc", "Document", "POST", "http://h/form", 422)       // 4: a form's page (DocumentAnswer's)
	sent("put", "XHR", "PUT", "http://h/api/item?token=s", 403) // 5
	sent("del", "Fetch", "DELETE", "http://h/api/item/2", 500)  // 6
	want("from the start", 0, 99, true, Refusal{Method: "PUT", Path: "/api/item", Status: 403})
	want("after the PUT", 5, 99, true, Refusal{Method: "DELETE", Path: "/api/item/2", Status: 500})
	want("up to the PUT's start", 0, 4, false, Refusal{})
	want("after all", 6, 99, false, Refusal{})
	for i := range maxRefused + 2 {
		sent(fmt.Sprintf("poll%d", i), "Fetch", "POST", "http://h/poll", 503)
	}
	if len(tr.refused) != maxRefused {
		t.Errorf("%d refusals kept, want %d", len(tr.refused), maxRefused)
	}
	want("the oldest forgotten", 0, 99, true, Refusal{Method: "POST", Path: "/poll", Status: 503})
}
