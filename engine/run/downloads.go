package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/policy"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/store"
)

// DownloadURIPrefix starts the MCP resource URI of every file a download
// step saved: toolwright://downloads/TRACE_ID/NAME. A client reads it with
// resources/read (Engine.ReadDownload), on any transport.
const DownloadURIPrefix = "toolwright://downloads/"

// DownloadURITemplate is DownloadURIPrefix as an RFC 6570 URI template.
const DownloadURITemplate = DownloadURIPrefix + "{trace}/{name}"

// ErrNoDownload is ReadDownload's answer for a URI that names no file a
// finished call's download step saved (or one the caller may not know of).
var ErrNoDownload = errors.New("no such download")

// Download is a saved file read back for a client.
type Download struct {
	URI  string
	MIME string
	// Text is the file as text, secrets redacted, for a text file; else
	// Blob holds its bytes.
	Text string
	Blob []byte
}

var (
	traceIDPattern = regexp.MustCompile(`^tr_[0-9A-HJKMNP-TV-Z]{26}$`)
	// downloadName is a name a step gives a file it keeps in DownloadDir;
	// partialName one the browser gives a file while it downloads (its
	// GUID), which is never served.
	downloadName = regexp.MustCompile(`^[A-Za-z0-9_ -][A-Za-z0-9._ -]*$`)
	partialName  = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|\.crdownload$`)
)

// DownloadRef is the file and uri of the reference {file, uri, name,
// bytes, mime} for name, a file the download step kept in this call's
// DownloadDir: file is its absolute path on the server
// (STATE_DIR/downloads/TRACE_ID/NAME: what a local agent hands to other
// tools), uri its MCP resource URI (what any client reads, also over HTTP).
// The step's trace record keeps name: ReadDownload serves no other file.
func (r *runner) DownloadRef(name string) (file, uri string) {
	if r.current >= 0 {
		r.c.updateStep(r.current, func(sr *store.StepRecord) { sr.Files = append(sr.Files, name) })
	}
	file = filepath.Join(r.c.e.cfg.StateDir, "downloads", r.c.traceID, name)
	if abs, err := filepath.Abs(file); err == nil {
		file = abs
	}
	return file, DownloadURIPrefix + r.c.traceID + "/" + url.PathEscape(name)
}

// ReadDownload reads the file a download URI names, under the rules of the
// call that saved it: the call must have finished; a write or destructive
// tool's file needs a live grant for that call's task_id now, as the call
// did; the file must be at most limits.max_download_bytes; a text file is
// served with every secret value redacted, and a binary file holding one
// is refused. Only a file the call's trace records a download step keeping
// is served: an unknown trace or file, a file put beside a kept one, or a
// malformed URI is ErrNoDownload.
func (e *Engine) ReadDownload(ctx context.Context, uri string) (*Download, error) {
	rest, ok := strings.CutPrefix(uri, DownloadURIPrefix)
	if !ok {
		return nil, ErrNoDownload
	}
	trace, escaped, ok := strings.Cut(rest, "/")
	name, err := url.PathUnescape(escaped)
	if !ok || err != nil || !traceIDPattern.MatchString(trace) || !downloadName.MatchString(name) || partialName.MatchString(name) || strings.Contains(name, "..") {
		return nil, ErrNoDownload
	}
	if e.store == nil {
		return nil, ErrNoDownload
	}
	t, err := e.store.GetTrace(ctx, trace)
	if err != nil {
		if errs.CodeOf(err) == errs.StoreUnavailable || errs.CodeOf(err) == errs.StoreBusy {
			return nil, err
		}
		return nil, ErrNoDownload
	}
	if t.Code == store.TraceRunning {
		return nil, ErrNoDownload // a call still running (or interrupted) shows no files
	}
	if !keptBy(t, name) {
		return nil, ErrNoDownload // a file the call's download steps did not keep
	}
	risk := policy.RiskWrite // a tool no longer served counts as a write, as undeclared risk does
	if w, ok := e.Workflows().Tool(t.Tool); ok {
		risk = w.Risk
	}
	var grants policy.GrantSource = e.store
	if _, err := policy.DecideWith(ctx, policy.WriteMode(e.cfg.Policy.WriteTools), risk, t.Tool, t.TaskID, grants, e.cfg.GrantCommand); err != nil {
		return nil, err
	}
	path := filepath.Join(e.cfg.StateDir, "downloads", trace, name)
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() {
		return nil, ErrNoDownload
	}
	if max := e.cfg.Limits.MaxDownloadBytes; max > 0 && st.Size() > max {
		return nil, errs.New(errs.LimitExceeded, "the download %s is %d bytes, above limits.max_download_bytes (%d)", name, st.Size(), max)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, err, "the download %s cannot be read", name)
	}
	d := &Download{URI: uri, MIME: result.MediaType(path)}
	if isText(d.MIME, data) {
		d.Text = e.redactor.Redact(string(data))
		return d, nil
	}
	if red := e.redactor.RedactBytes(data); !bytes.Equal(red, data) {
		return nil, errs.New(errs.NotGranted, "the download %s holds a secret value and is not text, so it cannot be redacted; it is not served", name)
	}
	d.Blob = data
	return d, nil
}

// keptBy reports whether a download step of trace t kept the file name.
func keptBy(t *store.Trace, name string) bool {
	for _, sr := range t.Steps {
		if slices.Contains(sr.Files, name) {
			return true
		}
	}
	return false
}

// isText reports whether a file of media type mt is served as text.
func isText(mt string, data []byte) bool {
	textual := strings.HasPrefix(mt, "text/") || mt == "application/json" || mt == "application/xml" ||
		strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml") || mt == "application/csv"
	return textual && utf8.Valid(data)
}

// String describes d for logs.
func (d *Download) String() string {
	return fmt.Sprintf("%s (%s)", d.URI, d.MIME)
}
