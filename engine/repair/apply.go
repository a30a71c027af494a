package repair

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/toolwright/toolwright/engine/selector"
	"gopkg.in/yaml.v3"
)

// Apply writes a reviewed proposal into a selector map: data is the map
// file, and target's entry gets locs as its primary and first fallbacks,
// its old primary and fallbacks kept after them (a locator the proposal
// already has is not repeated). It edits the YAML node tree, not a decoded
// map, and splices only the entry's own lines back: every comment, blank
// line and other entry of the file stays as it was, and the entry's own
// comments move with the keys they belong to (the old primary's into its
// fallback).
func Apply(data []byte, target string, locs []selector.Locator) ([]byte, error) {
	if len(locs) == 0 {
		return nil, fmt.Errorf("no locator to apply to %s", target)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("the selector map does not parse: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("the selector map is not a map of targets")
	}
	root := doc.Content[0]
	i := slices.IndexFunc(root.Content, func(n *yaml.Node) bool { return n.Value == target })
	if i < 0 || i%2 != 0 {
		return nil, fmt.Errorf("target %s is not in the selector map", target)
	}
	key, val := root.Content[i], root.Content[i+1]
	if val.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("target %s is not a map of keys (line %d)", target, val.Line)
	}
	edit(val, locs)
	val.Style &^= yaml.FlowStyle // a flow entry ({css: ...}) grows into block form
	// The entry's lines: from its key to the line before the next
	// entry's, less the blank lines and column-0 comments at its end
	// (those stay where they are, as the next entry's head comment does).
	lines := strings.SplitAfter(string(data), "\n")
	start, end := key.Line-1, len(lines)
	if i+2 < len(root.Content) {
		end = root.Content[i+2].Line - 1
	}
	for end > start+1 {
		l := lines[end-1]
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(l, "#") {
			break
		}
		end--
	}
	k := *key
	k.HeadComment, k.FootComment = "", ""
	v := *val
	v.FootComment = ""
	entry := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{&k, &v}}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(indentOf(lines[start:end]))
	if err := enc.Encode(entry); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	text := b.String()
	if end == len(lines) && !bytes.HasSuffix(data, []byte("\n")) {
		text = strings.TrimSuffix(text, "\n")
	}
	return []byte(strings.Join(lines[:start], "") + text + strings.Join(lines[end:], "")), nil
}

// locatorKeys are the keys of one locator in an entry or a fallback.
var locatorKeys = append(slices.Clone(selector.Strategies), "name")

// edit makes entry's primary locs[0] and its fallbacks locs[1:], then the
// old primary, then the old fallbacks.
func edit(entry *yaml.Node, locs []selector.Locator) {
	var old []*yaml.Node // the old primary's key and value nodes
	var oldFalls []*yaml.Node
	var fallKey *yaml.Node
	at := -1 // where the primary goes: where the old one was
	var kept []*yaml.Node
	for j := 0; j+1 < len(entry.Content); j += 2 {
		k, v := entry.Content[j], entry.Content[j+1]
		switch {
		case slices.Contains(locatorKeys, k.Value):
			if at < 0 {
				at = len(kept)
			}
			old = append(old, k, v)
		case k.Value == "fallbacks":
			fallKey = k
			if v.Kind == yaml.SequenceNode {
				oldFalls = v.Content
			}
		default:
			kept = append(kept, k, v)
		}
	}
	if at < 0 {
		at = 0
		if len(kept) >= 2 && kept[0].Value == "description" {
			at = 2
		}
	}
	seen := locs
	falls := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, l := range locs[1:] {
		// An old fallback the proposal repeats keeps its node (its comments).
		item := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: locatorNodes(l)}
		if j := slices.IndexFunc(oldFalls, func(f *yaml.Node) bool { return f.Kind == yaml.MappingNode && has([]selector.Locator{l}, f.Content) }); j >= 0 {
			item = oldFalls[j]
		}
		falls.Content = append(falls.Content, item)
	}
	if len(old) > 0 && !has(seen, old) {
		falls.Content = append(falls.Content, &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: old})
	}
	for _, f := range oldFalls {
		if f.Kind != yaml.MappingNode || !has(seen, f.Content) {
			falls.Content = append(falls.Content, f)
		}
	}
	if fallKey == nil {
		fallKey = scalar("fallbacks")
	}
	add := locatorNodes(locs[0])
	if len(falls.Content) > 0 {
		add = append(add, fallKey, falls)
	}
	entry.Content = slices.Concat(kept[:at], add, kept[at:])
}

// has reports whether the locator whose key and value nodes are kv is one
// of locs.
func has(locs []selector.Locator, kv []*yaml.Node) bool {
	var l selector.Locator
	for j := 0; j+1 < len(kv); j += 2 {
		switch k := kv[j].Value; {
		case k == "name":
			l.Name = kv[j+1].Value
		case slices.Contains(selector.Strategies, k):
			l.Strategy, l.Value = k, kv[j+1].Value
		}
	}
	return slices.ContainsFunc(locs, func(x selector.Locator) bool {
		return x.Strategy == l.Strategy && x.Value == l.Value && x.Name == l.Name
	})
}

// locatorNodes are l's keys and values, as an entry or a fallback holds them.
func locatorNodes(l selector.Locator) []*yaml.Node {
	out := []*yaml.Node{scalar(l.Strategy), scalar(l.Value)}
	if l.Strategy == selector.Role && l.Name != "" {
		out = append(out, scalar("name"), scalar(l.Name))
	}
	return out
}

func scalar(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

// indentOf is the indentation of an entry's keys (lines from its key on):
// the first indented line's, 2 when there is none.
func indentOf(lines []string) int {
	for _, l := range lines[1:] {
		if t := strings.TrimLeft(l, " "); t != "" && t != "\n" && !strings.HasPrefix(t, "#") {
			if n := len(l) - len(t); n > 0 {
				return n
			}
		}
	}
	return 2
}
