package main

import (
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-rod/rod"
	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/policy"
	"github.com/toolwright/toolwright/engine/repair"
	"github.com/toolwright/toolwright/engine/selcheck"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/selsuggest"
)

// checkLong is `selectors check --help`.
const checkLong = `Open pages and report, per target, which locator resolves it.

Pages are opened one after the other in one browser environment. With
--setup TOOL (an env: new workflow, such as one that signs in) that tool runs
first with the --arg values and the pages are checked in the environment it
made, so pages behind a sign-in can be checked. A page that does not load, or
that moves on to another address (a redirect, a script), is reported and the
other pages are still checked.

--report DIR writes DIR/index.html: each page's screenshot with every target
boxed and labelled (green: primary, amber: a fallback, red: ambiguous or
missing) with the locator that matched. It works offline; secret values are
masked in the pictures.

Every target that resolves leaves its element's fingerprint in the state
store (as calls do); a target that does not resolve gets a repair proposal
when exactly one element of the page matches its last fingerprint well: a
"repair" line with the locators (verified to match that element alone, by
suggest's rules), the features that agreed, and the entry to paste after
review ("repairs" in --format json). Two alike elements are no proposal
("ambiguous").

Exit 0 when every target on every page resolved by its primary locator.`

func selectorsCmd(g *globals) *cobra.Command {
	sel := &cobra.Command{Use: "selectors", Short: "Selector map tools"}
	var pages, setupArgs []string
	var prefix, format, setup, reportDir string
	check := &cobra.Command{
		Use:   "check --page URL|FILE ... [--setup TOOL [--arg k=v]] [--report DIR]",
		Short: "Open pages and report, per target, which locator resolves it (exit 0 when all by primary)",
		Long:  checkLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(pages) == 0 {
				return usagef("give at least one --page URL or FILE")
			}
			var m *selector.Map
			cfg, tab, done, err := pageEnv(cmd, g, format, setup, setupArgs, func(cfg *config.Config) error {
				var ps lint.Problems
				if m, ps = selector.Load(cfg.Selectors); len(ps) > 0 {
					return usagef("the selector map has problems (run toolwright validate):\n%w", ps.Err())
				}
				return nil
			})
			if err != nil {
				return err
			}
			defer done()
			var secrets []string
			for _, v := range cfg.RedactedValues() {
				secrets = append(secrets, v)
			}
			red := policy.NewRedactor(cfg.RedactedValues())
			prints, closeStore := checkPrints(cmd, cfg, red)
			defer closeStore()
			res, err := selcheck.Run(cmd.Context(), tab, pages, selcheck.Options{
				Map: m, MapPath: cfg.Selectors, Names: m.WithPrefix(prefix), ReportDir: reportDir,
				Redactor: red, Secrets: secrets, Prints: prints,
			})
			if err != nil {
				return err
			}
			if err := selcheck.Write(cmd.OutOrStdout(), res, format); err != nil {
				return err
			}
			if reportDir != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "report: %s\n", filepath.Join(reportDir, "index.html"))
			}
			if !selcheck.AllOK(res) {
				return exitCode(exitFailed)
			}
			return nil
		},
	}
	check.Flags().StringArrayVar(&pages, "page", nil, "a page URL or a local HTML file (repeatable)")
	check.Flags().StringVar(&prefix, "prefix", "", "check only targets whose name starts with this")
	check.Flags().StringVar(&setup, "setup", "", "an env: new tool to run first (to sign in); the pages are checked in its environment")
	check.Flags().StringArrayVar(&setupArgs, "arg", nil, "an argument NAME=VALUE of the --setup tool (repeatable)")
	check.Flags().StringVar(&reportDir, "report", "", "write an HTML report (index.html and screenshots) into this folder")
	_ = check.RegisterFlagCompletionFunc("setup", g.completeTools(false))
	formatFlag(check, &format)
	sel.AddCommand(check, suggestCmd(g))
	return sel
}

// checkPrints keeps the fingerprints `selectors check` reads in the
// config's store, where calls keep theirs, so a broken target gets a
// repair proposal from what the last call or check saw. Without a store
// the check goes on without them, and says so.
func checkPrints(cmd *cobra.Command, cfg *config.Config, red *policy.Redactor) (*repair.Keeper, func()) {
	st, err := app.OpenStore(cfg)
	if err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "note: no repair proposals: the state store did not open: %s\n", red.Redact(err.Error()))
		return nil, func() {}
	}
	return repair.NewKeeper(st, red.Redact), func() { _ = st.Close() }
}

func suggestCmd(g *globals) *cobra.Command {
	var page, prefix, setup, format string
	var setupArgs []string
	cmd := &cobra.Command{
		Use:   "suggest --page URL|FILE [--setup TOOL [--arg k=v]] [--prefix NAME]",
		Short: "Propose selector-map entries for a page's fields, buttons and links",
		Long: `Open a page and propose selector-map YAML for its fields, buttons and links
(inside open shadow roots and iframes too; an iframe is an entry of its own
that the entries inside it name in frame:): a stable primary locator (id, data-testid,
name, label) and fallbacks (role + name, text). Every locator proposed was
resolved on the page and matched exactly one element, the one it names;
elements with no such locator are left out. With --setup TOOL (an env: new
workflow, such as one that signs in) the page is read in the environment it
made. Review the names, then paste the entries into selectors/selectors.yaml.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if page == "" {
				return usagef("give --page URL or FILE")
			}
			cfg, tab, done, err := pageEnv(cmd, g, format, setup, setupArgs, nil)
			if err != nil {
				return err
			}
			defer done()
			url := selcheck.URLOf(page)
			secrets := slices.Collect(maps.Values(cfg.SecretValues())) // no value of any secret, redacted or not, is proposed
			res, err := selsuggest.SuggestPage(cmd.Context(), tab, url, prefix, selsuggest.Options{Secrets: secrets})
			if err != nil {
				return err
			}
			for _, note := range res.Notes(url) {
				fmt.Fprintln(cmd.ErrOrStderr(), note)
			}
			var b strings.Builder
			if err := res.Write(&b, url, format); err != nil {
				return err
			}
			red := policy.NewRedactor(cfg.RedactedValues())
			_, err = io.WriteString(cmd.OutOrStdout(), red.Redact(b.String()))
			return err
		},
	}
	cmd.Flags().StringVar(&page, "page", "", "the page URL or a local HTML file")
	cmd.Flags().StringVar(&prefix, "prefix", "", "name the entries PREFIX.NAME (default: page.<file name>)")
	cmd.Flags().StringVar(&setup, "setup", "", "an env: new tool to run first (to sign in); the page is read in its environment")
	cmd.Flags().StringArrayVar(&setupArgs, "arg", nil, "an argument NAME=VALUE of the --setup tool (repeatable)")
	_ = cmd.RegisterFlagCompletionFunc("setup", g.completeTools(false))
	formatFlag(cmd, &format)
	return cmd
}

// pageEnv checks the flags the selectors commands share, loads the config
// (then runs before, if any) and opens the browser tab they work in: a
// fresh environment, or the one the setup tool made. done closes it.
func pageEnv(cmd *cobra.Command, g *globals, format, setup string, setupArgs []string, before func(*config.Config) error) (*config.Config, *rod.Page, func(), error) {
	if err := checkFormat(format); err != nil {
		return nil, nil, nil, err
	}
	if len(setupArgs) > 0 && setup == "" {
		return nil, nil, nil, usagef("--arg goes with --setup TOOL")
	}
	cfg, stopDemo, err := g.loadRunnable(cmd)
	if err != nil {
		return nil, nil, nil, err
	}
	fail := func(err error) (*config.Config, *rod.Page, func(), error) { stopDemo(); return nil, nil, nil, err }
	if before != nil {
		if err := before(cfg); err != nil {
			return fail(err)
		}
	}
	log, err := g.logger(cmd, cfg)
	if err != nil {
		return fail(err)
	}
	tab, done, err := app.OpenPage(cmd.Context(), cfg, log, setup, setupArgs)
	if err != nil {
		return fail(err)
	}
	return cfg, tab, func() { done(); stopDemo() }, nil
}
