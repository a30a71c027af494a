package kinds

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/step"
	"github.com/toolwright/toolwright/engine/tmpl"
)

func init() {
	step.Register(&step.Spec{
		Kind: "upload",
		Doc: "Put files into a file input. Files come only from the config's uploads_dir: a name is a path " +
			"inside it, never absolute and never with `..`. A literal name is checked when the workflow " +
			"loads; a templated one when the call runs (invalid_params).",
		Risk:  "write",
		Acts:  true,
		Sends: true,
		Fields: []step.Field{
			{Name: "target", Type: step.Target, Required: true, Doc: "the file input (<input type=file>)"},
			{Name: "files", Type: step.TemplateList, Required: true, Doc: "names of files under uploads_dir, like [invoice.pdf]; a template may give a name or a list"},
		},
		Example: "upload: {target: nw.order.exemption, files: [exemption.txt]}",
		AfterCompile: func(c *step.Checker, s *step.Step) {
			for _, v := range s.Values("files") {
				if v.Value == nil || !v.Value.IsLiteral() {
					continue
				}
				if err := uploadName(tmpl.Text(v.Value.Value())); err != nil {
					c.Addf(s.Pos, lint.BadValue, "upload files: %s", errs.As(err).Message)
				}
			}
		},
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			up, err := step.Need[step.Uploads](x, s)
			if err != nil {
				return err
			}
			var paths, given []string
			for _, v := range s.Values("files") {
				val, err := x.Eval(ctx, v.Value)
				if err != nil {
					return err
				}
				names, err := listOf(val)
				if err != nil || len(names) == 0 {
					names = []any{val}
				}
				for _, n := range names {
					p, err := uploadPath(up.UploadsDir(), tmpl.Text(n), !v.Value.IsLiteral())
					if err != nil {
						return err
					}
					paths, given = append(paths, p), append(given, tmpl.Text(n))
				}
			}
			name := targetLabel(x, s, "target")
			m, err := x.Find(ctx, s.Str("target"), step.FindOpt{})
			if err != nil {
				return err
			}
			el := m.Elements[0].Context(ctx)
			res, err := el.Eval(`function () { return this.tagName === 'INPUT' && this.type === 'file' ? (this.multiple ? 2 : 1) : 0 }`)
			if err != nil {
				return err
			}
			switch n := res.Value.Int(); {
			case n == 0:
				return errs.New(errs.TargetNotFound, "target %s is not a file input (<input type=file>)", name)
			case n == 1 && len(paths) > 1:
				return errs.New(errs.InvalidParams, "target %s takes one file, got %d", name, len(paths))
			}
			return selector.SetFiles(ctx, el, paths, given, selector.ActOptions{Name: name})
		},
	})
}

// uploadName checks the form of a name: relative, inside the folder.
func uploadName(name string) error {
	clean := filepath.Clean(filepath.FromSlash(name))
	switch {
	case strings.TrimSpace(name) == "":
		return errs.New(errs.InvalidParams, "an empty file name")
	case filepath.IsAbs(name) || strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`):
		return errs.New(errs.InvalidParams, "%q is an absolute path: name a file inside uploads_dir", name)
	case clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) || strings.Contains(name, ".."):
		return errs.New(errs.InvalidParams, "%q leaves uploads_dir (..): name a file inside it", name)
	}
	return nil
}

// uploadPath is the file name names under dir, which must exist there. A
// missing literal file is the server's config_error; a missing or bad
// templated name is the caller's invalid_params.
func uploadPath(dir, name string, templated bool) (string, error) {
	if dir == "" {
		return "", errs.New(errs.ConfigError, "upload needs uploads_dir in the server config")
	}
	if err := uploadName(name); err != nil {
		return "", err
	}
	p := filepath.Join(dir, filepath.Clean(filepath.FromSlash(name)))
	real, err := filepath.EvalSymlinks(p)
	if err == nil {
		root, rerr := filepath.EvalSymlinks(dir)
		if rerr == nil && real != root && !strings.HasPrefix(real, root+string(filepath.Separator)) {
			return "", errs.New(errs.InvalidParams, "%q leads outside uploads_dir", name)
		}
	}
	st, err := os.Stat(p)
	switch {
	case err != nil && templated:
		return "", errs.New(errs.InvalidParams, "file %q is not in uploads_dir", name)
	case err != nil:
		return "", errs.New(errs.ConfigError, "file %q is not in uploads_dir (%s)", name, dir)
	case st.IsDir():
		return "", errs.New(errs.InvalidParams, "%q is a folder, not a file", name)
	}
	return p, nil
}
