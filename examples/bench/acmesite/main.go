// Command acmesite serves the embedded Acme demo site (examples/demo/site) on a
// loopback address for the benchmarks. It prints the site's base URL on its
// first stdout line, then serves until it is interrupted or stdin closes.
// Besides the demo site it serves /bench/wide?rows=N, a table of N products
// × 8 fields for the extract-cost and model-bytes benchmarks (wide.go).
//
//	go run ./examples/bench/acmesite [-addr 127.0.0.1:0] [-url-file FILE]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/toolwright/toolwright"
	"github.com/toolwright/toolwright/engine/demo"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "loopback address to listen on (port 0 picks a free one)")
	urlFile := flag.String("url-file", "", "also write the base URL to this file once listening")
	watchStdin := flag.Bool("stdin", false, "exit when stdin closes (for a parent process)")
	flag.Parse()

	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		log.Fatalf("-addr: %v", err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		log.Fatalf("-addr must be a loopback address, not %s", *addr)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	mux := http.NewServeMux()
	mux.Handle("/", demo.Handler(toolwright.DemoSite()))
	mux.HandleFunc("/bench/wide", wideHandler)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *watchStdin {
		go func() { _, _ = io.Copy(io.Discard, os.Stdin); stop() }()
	}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if *urlFile != "" {
		if err := os.WriteFile(*urlFile, []byte(base+"\n"), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println(base)
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		log.Fatal(err)
	}
}
