package result

import (
	"mime"
	"net/http"
	"os"
	"path/filepath"
)

// MediaType is a file's media type, without parameters: by its
// extension, else by its first bytes. A file reference carries it (the
// download step's {file, uri, name, bytes, mime}), and so does a saved
// file read back for a client.
func MediaType(path string) string {
	t := mime.TypeByExtension(filepath.Ext(path))
	if t == "" {
		t = "application/octet-stream"
		if f, err := os.Open(path); err == nil {
			head := make([]byte, 512)
			n, _ := f.Read(head)
			f.Close()
			t = http.DetectContentType(head[:n])
		}
	}
	if mt, _, err := mime.ParseMediaType(t); err == nil {
		return mt
	}
	return t
}
