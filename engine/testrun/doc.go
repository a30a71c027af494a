// Package testrun runs YAML test files: calls of workflow tools against
// fixture pages served on loopback, each with the envelope fields it expects.
// It is what `toolwright test` runs, so that workflow authors can test a
// workflow without writing Go.
//
// # The file format
//
//	# tests/search_catalog.yaml
//	serve: ../site                       # a folder served on a free loopback port (relative to this file)
//	workflows: ../workflows              # optional: workflow files or folders (default: the config's)
//	selectors: ../selectors.yaml         # optional: the selector map (default: the config's)
//	vars:                                # config vars for these cases, over the config's own
//	  acme_base: ${{ site.url }}         # the served folder's URL, like http://127.0.0.1:41234
//	secrets:                             # test-only secret values, redacted like real ones
//	  acme_user: buyer@example.com
//	  acme_password: test-password-123
//	cases:
//	  - name: three pages of everything  # required, unique in the file; --run matches it
//	    tool: search_catalog             # required
//	    args: {query: "", max_pages: 3}  # the tool's arguments, as an agent would send them
//	    expect:                          # required: dotted paths into the envelope
//	      ok: true
//	      data.rows.count: 15
//	      data.rows.truncated: true
//	      data.rows.items.0.sku: ACM-1001 # a number indexes a list
//	  - name: max_pages is bounded
//	    tool: search_catalog
//	    args: {max_pages: 9}
//	    expect: {ok: false, code: invalid_params, message: {contains: max_pages}}
//
// Top-level keys: serve, workflows, selectors, vars, secrets, cases; every one
// optional but cases. Case keys:
//
//	name      required, unique within the file
//	id        optional, ^[a-z][a-z0-9_]{0,63}$: lets later cases use this case's envelope
//	tool      required: a tool of the loaded workflows
//	args      the arguments (a map); task_id goes in its own key, not here
//	task_id   the call's task_id (idempotency key; needed by write tools)
//	grant     true: an operator grant for (tool, task_id) is made before the call,
//	          so write tools can be tested under policy.write_tools: grant
//	expect    required, not empty: path → expected value
//
// # Expectations
//
// A key of expect is a dotted path into the envelope: ok, code, message,
// retryable, needs_human, task_id, trace_id, attempts, duration_ms, step,
// data and data.NAME... (NAME an output of the tool). A number indexes a list
// (data.rows.items.0.sku). Fields the envelope leaves out count as their zero
// value (message "", data {}). A value is compared exactly (numbers by value;
// maps and lists entirely), except a map made only of these matchers, which
// must all hold:
//
//	{equals: V}       exactly V (use it to compare a map whose keys look like matchers)
//	{contains: V}     a string containing the string V, or a list with an item equal to V
//	{matches: RE}     a string matching the RE2 regular expression RE (part of it; anchor with ^ and $)
//	{len: N}          a string of N characters, or a list or map of N items
//	{exists: B}       true: the path has a value; false: it has none
//
// null matches a missing value too. Envelopes are redacted before they are
// compared, so a secret shows as [redacted:NAME].
//
// # References
//
// A string in vars, args or expect may hold ${{ REF }}:
//
//	${{ site.url }}              the URL of the served folder (needs serve:)
//	${{ cases.ID.PATH }}         a path into the envelope of an earlier case with id: ID,
//	                             e.g. ${{ cases.open.data.env_id }}
//
// A string that is exactly one reference keeps the value's type (a number
// stays a number); otherwise the values are joined into the text. $${{ is a
// literal ${{ (to test that the engine never evaluates arguments). Inside a
// {...} flow map, quote strings with references. A case that uses an earlier
// case runs only when that case passed; --run also runs the cases the chosen
// ones use.
//
// # Running
//
// All files are read and checked first (unknown keys, tools, arguments,
// output names and references, with file:line:col and "did you mean"); with
// any problem nothing runs. Then the cases of each file run in order in one
// engine with its own fresh state directory (never the user's state), on the
// config's workflows or the file's own. An unknown argument is a problem,
// unless the case expects code invalid_params. A secret the config declares
// and the file does not set is read as usual (environment or file); one that
// cannot be read stops only the cases whose tool (or a tool it calls) reads
// it, and the cases that use them: each is reported SKIP, naming the secret
// and its source, and counted as skipped, not failed; the others run. When
// policy.allowed_hosts is not empty, the served site's host (127.0.0.1) is
// added to it.
package testrun
