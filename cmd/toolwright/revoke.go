package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/store"
)

func revokeCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "revoke GRANT_ID",
		Short: "Revoke a grant at once",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withStore(func(st store.Store) error {
				if err := st.Revoke(cmd.Context(), args[0]); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "revoked %s\n", args[0])
				return nil
			})
		},
	}
}
