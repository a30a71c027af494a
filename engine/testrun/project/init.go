package project

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/toolwright/toolwright/engine/selector"
)

//go:embed all:skeleton
var skeleton embed.FS

// Init writes a new project into dir: toolwright.yaml, workflows/ with one
// example, selectors/, tests/ with its site, the four editor schemas
// (written for the project's selector map) and .vscode/settings.json. It
// refuses to overwrite a file that exists. It returns the files written.
func Init(dir string) ([]string, error) {
	var written []string
	err := fs.WalkDir(skeleton, "skeleton", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel("skeleton", p)
		dst := filepath.Join(dir, rel)
		if _, err := os.Stat(dst); err == nil {
			return fmt.Errorf("%s exists: toolwright init writes only new files (pick an empty folder)", dst)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = fs.WalkDir(skeleton, "skeleton", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel("skeleton", p)
		dst := filepath.Join(dir, rel)
		data, err := skeleton.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
		written = append(written, dst)
		return nil
	})
	if err != nil {
		return written, err
	}
	sel, ps := selector.Load(filepath.Join(dir, "selectors", "selectors.yaml"))
	if len(ps) > 0 {
		return written, ps.Err()
	}
	schemas, err := WriteSchemas(filepath.Join(dir, "schemas"), sel)
	return append(written, schemas...), err
}
