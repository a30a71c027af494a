package policy

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// MinRedactedLen is the length under which a redacted secret is warned
// about: a value this short is found inside unrelated text (a URL, a
// greeting, a column of names) and every such place is redacted.
const MinRedactedLen = 8

// commonWords are values that are names or words people see on pages rather
// than secrets: user and role names, and the words an application writes
// around them. A redacted secret equal to one of them (any case) is warned
// about.
var commonWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`
		admin administrator root user users username guest demo test tester testing
		operator manager editor author owner member staff support service system
		default public private master main info contact sales office account
		login logout signin password passwd secret welcome hello howdy home
		dashboard profile settings search admin1 user1 test1 sysadmin webmaster
		postmaster nobody anonymous developer dev ops devops qa customer client
		shop store order orders cart product products catalog page pages post
		posts comment comments media upload uploads file files image images
		content edit update delete remove create new view list table report
		reports team company example sample`) {
		commonWords[w] = true
	}
}

// WeakSecretWarnings are warnings about redacted secrets (name → value)
// whose value is shorter than MinRedactedLen characters or is one common
// word: each place such a value appears inside other text is redacted too
// ("wp-[redacted:wp_user]", "Howdy, [redacted:wp_user]"). The warnings name
// the secret and its length, never its value, and say how to declare an
// identity that is not a secret. Sorted by name.
func WeakSecretWarnings(secrets map[string]string) []string {
	names := make([]string, 0, len(secrets))
	for n := range secrets {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []string
	const fix = "every place it appears inside other text (URLs, greetings, names in a list) is redacted; " +
		"if it is an identity such as a user name, declare it {env: ..., redact: false} (still usable in fill) or keep it in vars"
	for _, n := range names {
		v := secrets[n]
		switch {
		case v == "":
			continue
		case commonWords[strings.ToLower(strings.TrimSpace(v))]:
			out = append(out, fmt.Sprintf("secret %q is one common word: %s", n, fix))
		case utf8.RuneCountInString(v) < MinRedactedLen:
			out = append(out, fmt.Sprintf("secret %q is only %d characters long: %s", n, utf8.RuneCountInString(v), fix))
		}
	}
	return out
}
