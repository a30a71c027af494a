package htmlview

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/go-rod/rod"
	"github.com/toolwright/toolwright/engine/config"
)

// ServeLive serves the live view of page on addr, a loopback address and
// port, under an unguessable path, for a person without a display on this
// machine (`toolwright record --live`). It returns the viewer's URL and
// stop, which closes the live view and shuts the server down.
func ServeLive(ctx context.Context, addr string, page *rod.Page, opts LiveOptions) (string, func(), error) {
	if host, _, err := net.SplitHostPort(addr); err != nil || !config.IsLoopback(host) {
		return "", nil, fmt.Errorf("live view address %q: give a loopback address and port, such as 127.0.0.1:8091", addr)
	}
	tok := make([]byte, 16)
	if _, err := rand.Read(tok); err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	lv := NewLive(page, opts)
	prefix := "/live/" + hex.EncodeToString(tok)
	mux := http.NewServeMux()
	mux.Handle(prefix+"/", http.StripPrefix(prefix, lv))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String() + prefix + "/", func() {
		lv.Close()
		_ = srv.Shutdown(context.WithoutCancel(ctx))
	}, nil
}
