package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// buildInfo is what the binary knows about its own build.
type buildInfo struct {
	Version  string `json:"version"`
	Commit   string `json:"commit"`
	Modified bool   `json:"modified"`
	Go       string `json:"go"`
}

// readBuildInfo reads the module version, the VCS commit and the Go version
// from the build info the Go toolchain embeds.
func readBuildInfo() buildInfo {
	b := buildInfo{Version: "dev", Commit: "unknown", Go: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		b.Version = v
	}
	if bi.GoVersion != "" {
		b.Go = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// buildVersion is the module version the binary was built from.
func buildVersion() string { return readBuildInfo().Version }

// versionLine is what `toolwright --version` prints.
func versionLine() string {
	b := readBuildInfo()
	commit := b.Commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if b.Modified {
		commit += "+modified"
	}
	return fmt.Sprintf("toolwright %s (commit %s, %s)", b.Version, commit, b.Go)
}
