package policy

import (
	"context"
	"log/slog"
)

// RedactingHandler wraps h so every log record leaves with its message and
// attribute values redacted by r: strings, errors, fmt.Stringers and
// anything else logged with slog.Any (after LogValuer resolution), inside
// groups too. Attribute keys and group names come from code and pass as they
// are.
func RedactingHandler(h slog.Handler, r *Redactor) slog.Handler {
	return &redactingHandler{h: h, r: r}
}

type redactingHandler struct {
	h slog.Handler
	r *Redactor
}

func (h *redactingHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.h.Enabled(ctx, l)
}

func (h *redactingHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.r.Redact(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.h.Handle(ctx, out)
}

func (h *redactingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = h.attr(a)
	}
	return &redactingHandler{h: h.h.WithAttrs(red), r: h.r}
}

func (h *redactingHandler) WithGroup(name string) slog.Handler {
	return &redactingHandler{h: h.h.WithGroup(name), r: h.r}
}

func (h *redactingHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.r.Redact(v.String()))
	case slog.KindGroup:
		g := v.Group()
		red := make([]slog.Attr, len(g))
		for i, ga := range g {
			red[i] = h.attr(ga)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(red...)}
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, h.r.Redact(x.Error()))
		case interface{ String() string }:
			return slog.String(a.Key, h.r.Redact(x.String()))
		default:
			return slog.Any(a.Key, h.r.RedactAny(x))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
