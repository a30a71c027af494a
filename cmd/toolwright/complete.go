package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/workflow"
)

// Shell completion (`toolwright completion bash|zsh|fish|powershell`) of
// tool names, trace ids and flag values. Completion reads the config the
// command line names (--config, --demo) and never fails loudly: with no
// answer the shell offers nothing.

// completeTools completes a tool name; writesOnly keeps the tools that need a grant.
func (g *globals) completeTools(writesOnly bool) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		cfg, err := g.load()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		set, _ := workflow.Load(cfg)
		tools := set.Tools()
		if writesOnly { // grant: the recording tools too
			tools = app.Tools(set)
		}
		var out []string
		for _, w := range tools {
			if strings.HasPrefix(w.Name, prefix) && (!writesOnly || w.Writes()) {
				out = append(out, w.Name+"\t"+firstLine(w.Description))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeToolArg completes the TOOL argument of run.
func (g *globals) completeToolArg(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return g.completeTools(false)(cmd, args, prefix)
}

// completeTraceIDs completes a trace id from the newest traces.
func (g *globals) completeTraceIDs(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	_ = g.withStore(func(st store.Store) error {
		list, err := st.ListTraces(cmd.Context(), store.TraceFilter{Limit: 50})
		if err != nil {
			return err
		}
		for _, t := range list {
			if strings.HasPrefix(t.ID, prefix) {
				out = append(out, t.ID+"\t"+t.Tool+" "+t.Code)
			}
		}
		return nil
	})
	return out, cobra.ShellCompDirectiveNoFileComp
}
