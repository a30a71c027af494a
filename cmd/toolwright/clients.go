package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/config"
)

// clientNames are the clients `toolwright clients` writes a config for.
var clientNames = []string{"claude-desktop", "claude-code", "cursor", "vscode"}

func clientsCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "clients [claude-desktop|claude-code|cursor|vscode]",
		Short: "Print a ready MCP client config with this machine's toolwright binary and config paths",
		Long: `Print the JSON a client needs to start this toolwright over stdio: the absolute path of this
binary and of the config (--config, or ./toolwright.yaml when present), and an env block with every
environment variable the config reads (its secrets' {env: NAME}, audit.key and sessions.key when
the config names them). Values are never printed: each variable stands as the client's own
reference to it (Claude Code "${VAR}", Cursor "${env:VAR}", VS Code "${input:VAR}", asked for
once with a hidden prompt), or, for Claude Desktop, which fills in none, as "" to replace with the
value. Where the config goes, and what to fill in, is said on stderr. Default: claude-desktop.`,
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
			var vars []config.EnvVar
			if cfgPath != "" {
				c, err := config.Load(cfgPath)
				if err != nil {
					return usageError{err}
				}
				vars = c.EnvVars()
			}
			cfg, where, err := clientConfig(client, bin, cfgPath, runtime.GOOS, vars)
			if err != nil {
				return err
			}
			b, _ := json.MarshalIndent(cfg, "", "  ")
			fmt.Fprintf(cmd.OutOrStdout(), "%s\n", b)
			fmt.Fprintln(cmd.ErrOrStderr(), where)
			if len(vars) > 0 {
				fmt.Fprintln(cmd.ErrOrStderr(), clientEnvNote(client, vars))
			}
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

// clientConfig builds one client's config, with an env block for vars
// (clientEnvBlock), and says where it goes.
func clientConfig(client, bin, cfgPath, goos string, vars []config.EnvVar) (any, string, error) {
	args := []string{"serve"}
	if cfgPath != "" {
		args = []string{"--config", cfgPath, "serve"}
	}
	server := func(typed bool) map[string]any {
		s := map[string]any{"command": bin, "args": args}
		if typed {
			s["type"] = "stdio"
		}
		if len(vars) > 0 {
			s["env"] = clientEnvBlock(client, vars)
		}
		return s
	}
	switch client {
	case "claude-desktop":
		where := "~/.config/Claude/claude_desktop_config.json"
		switch goos {
		case "darwin":
			where = "~/Library/Application Support/Claude/claude_desktop_config.json"
		case "windows":
			where = `%APPDATA%\Claude\claude_desktop_config.json`
		}
		return map[string]any{"mcpServers": map[string]any{"toolwright": server(false)}}, "merge into " + where + ", then restart Claude Desktop", nil
	case "claude-code":
		line := "or run: claude mcp add toolwright"
		for _, v := range vars { // the shell puts the value in, from the person's environment
			line += " -e " + v.Name + `="$` + v.Name + `"`
		}
		line += " -- " + shellQuote(bin)
		for _, a := range args {
			line += " " + shellQuote(a)
		}
		return map[string]any{"mcpServers": map[string]any{"toolwright": server(true)}},
			"save as .mcp.json in the project folder (" + line + ")", nil
	case "cursor":
		return map[string]any{"mcpServers": map[string]any{"toolwright": server(false)}}, "save as .cursor/mcp.json in the project folder (or ~/.cursor/mcp.json for every project)", nil
	case "vscode":
		out := map[string]any{"servers": map[string]any{"toolwright": server(true)}}
		if len(vars) > 0 {
			out["inputs"] = vscodeInputs(vars)
		}
		return out, "save as .vscode/mcp.json in the workspace", nil
	}
	return nil, "", usagef("unknown client %q: want one of claude-desktop, claude-code, cursor, vscode", client)
}

// clientEnvBlock is the env block of client: each variable the config reads,
// by name, standing as the client's own reference to its value (never the
// value): Claude Code expands ${VAR} from its environment, Cursor
// ${env:VAR}, VS Code ${input:VAR} (asked once, hidden; vscodeInputs).
// Claude Desktop expands nothing: "" to replace with the value.
func clientEnvBlock(client string, vars []config.EnvVar) map[string]string {
	env := make(map[string]string, len(vars))
	for _, v := range vars {
		switch client {
		case "claude-code":
			env[v.Name] = "${" + v.Name + "}"
		case "cursor":
			env[v.Name] = "${env:" + v.Name + "}"
		case "vscode":
			env[v.Name] = "${input:" + v.Name + "}"
		default:
			env[v.Name] = ""
		}
	}
	return env
}

// vscodeInputs declares VS Code's prompts for the ${input:VAR} of clientEnvBlock.
func vscodeInputs(vars []config.EnvVar) []map[string]any {
	out := make([]map[string]any, 0, len(vars))
	for _, v := range vars {
		out = append(out, map[string]any{"type": "promptString", "id": v.Name, "description": "toolwright: " + v.For, "password": true})
	}
	return out
}

// clientEnvNote says on stderr what the person must do for the env block.
func clientEnvNote(client string, vars []config.EnvVar) string {
	names := make([]string, 0, len(vars))
	for _, v := range vars {
		names = append(names, v.Name+" ("+v.For+")")
	}
	list := strings.Join(names, ", ")
	switch client {
	case "claude-code":
		return "the config reads " + list + ": set them in the environment Claude Code starts in (an unset one reaches the server as the text ${VAR})"
	case "cursor":
		return "the config reads " + list + ": set them in the environment Cursor starts in"
	case "vscode":
		return "the config reads " + list + ": VS Code asks for each once when it starts the server, and keeps it hidden"
	}
	return "the config reads " + list + ": fill in each value in the env block (the file then holds them: keep it private)"
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
