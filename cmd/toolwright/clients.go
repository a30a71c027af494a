package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"
)

// clientNames are the clients `toolwright clients` writes a config for.
var clientNames = []string{"claude-desktop", "claude-code", "cursor", "vscode"}

func clientsCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:       "clients [claude-desktop|claude-code|cursor|vscode]",
		Short:     "Print a ready MCP client config with this machine's toolwright binary and config paths",
		Long:      "Print the JSON a client needs to start this toolwright over stdio: the absolute path of this binary and of the config (--config, or ./toolwright.yaml when present). Where the client reads it is said on stderr. Default: claude-desktop.",
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: clientNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			client := "claude-desktop"
			if len(args) == 1 {
				client = args[0]
			}
			bin, err := os.Executable()
			if err != nil {
				return fmt.Errorf("cannot find this binary's path: %w", err)
			}
			if real, err := filepath.EvalSymlinks(bin); err == nil {
				bin = real
			}
			cfgPath, err := clientConfigPath(g.config)
			if err != nil {
				return err
			}
			cfg, where, err := clientConfig(client, bin, cfgPath, runtime.GOOS)
			if err != nil {
				return err
			}
			b, _ := json.MarshalIndent(cfg, "", "  ")
			fmt.Fprintf(cmd.OutOrStdout(), "%s\n", b)
			fmt.Fprintln(cmd.ErrOrStderr(), where)
			if cfgPath == "" {
				fmt.Fprintln(cmd.ErrOrStderr(), "note: no config file (give --config FILE, or run from the project folder): the server will use the defaults")
			}
			return nil
		},
	}
	return cmd
}

// clientConfigPath is the absolute path of the config the server should
// read: --config, else ./toolwright.yaml when it exists, else "".
func clientConfigPath(flag string) (string, error) {
	p := flag
	if p == "" {
		if _, err := os.Stat("toolwright.yaml"); err != nil {
			return "", nil
		}
		p = "toolwright.yaml"
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(abs); err != nil {
		return "", usagef("--config %s: %v", p, errText(err))
	}
	return abs, nil
}

func errText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// clientConfig builds one client's config and says where it goes.
func clientConfig(client, bin, cfgPath, goos string) (any, string, error) {
	args := []string{"serve"}
	if cfgPath != "" {
		args = []string{"--config", cfgPath, "serve"}
	}
	stdio := map[string]any{"command": bin, "args": args}
	switch client {
	case "claude-desktop":
		where := "~/.config/Claude/claude_desktop_config.json"
		switch goos {
		case "darwin":
			where = "~/Library/Application Support/Claude/claude_desktop_config.json"
		case "windows":
			where = `%APPDATA%\Claude\claude_desktop_config.json`
		}
		return map[string]any{"mcpServers": map[string]any{"toolwright": stdio}}, "merge into " + where + ", then restart Claude Desktop", nil
	case "claude-code":
		line := "or run: claude mcp add toolwright -- " + shellQuote(bin)
		for _, a := range args {
			line += " " + shellQuote(a)
		}
		return map[string]any{"mcpServers": map[string]any{"toolwright": map[string]any{"type": "stdio", "command": bin, "args": args}}},
			"save as .mcp.json in the project folder (" + line + ")", nil
	case "cursor":
		return map[string]any{"mcpServers": map[string]any{"toolwright": stdio}}, "save as .cursor/mcp.json in the project folder (or ~/.cursor/mcp.json for every project)", nil
	case "vscode":
		return map[string]any{"servers": map[string]any{"toolwright": map[string]any{"type": "stdio", "command": bin, "args": args}}}, "save as .vscode/mcp.json in the workspace", nil
	}
	return nil, "", usagef("unknown client %q: want one of claude-desktop, claude-code, cursor, vscode", client)
}

// shellQuote quotes a word for a POSIX shell when it needs it.
func shellQuote(s string) string {
	for _, r := range s {
		if !(r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || r == '=' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}
