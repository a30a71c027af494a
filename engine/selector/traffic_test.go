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
	tr := &Traffic{inflight: map[proto.NetworkRequestID]request{}, changed: make(chan struct{})}
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
