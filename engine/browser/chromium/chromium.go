// Package chromium is the one place that says which Chromium toolwright
// starts and with which command line. The engine's local provider, the
// tests' shared browser and the benchmarks' rod floor all launch through
// it, so a test or a benchmark runs the browser a server runs.
//
// The binary, when browser.bin does not name one: for a headless browser,
// chromium-headless-shell when it is installed (Debian's package of the
// same name, built from the same Chromium source; Playwright's default for
// headless Chromium too), otherwise the Chromium or Chrome rod's
// launcher.LookPath finds on PATH. The headless shell is Chromium without
// the desktop browser's layer above the page: on this project's test suite
// it takes about half the CPU of `chromium --headless` for the same pages
// (see the README's "For contributors"). A headed browser is always the
// full Chromium.
package chromium

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/go-rod/rod/lib/launcher"
)

// HeadlessShell is the headless-only Chromium's command (Debian's
// chromium-headless-shell package).
const HeadlessShell = "chromium-headless-shell"

// shells are where Find looks for the headless shell, first to last:
// Debian's binary itself (its /usr/bin command is a shell script that runs
// it as a child, so the pid a launcher holds would be the script's, and a
// crash of the browser would look like the script's exit), then the
// commands on PATH (Debian's, and Google's chrome-headless-shell).
var shells = []string{"/usr/lib/chromium/" + HeadlessShell, HeadlessShell, "chrome-headless-shell"}

// ErrNotFound is Find's error when no Chromium is installed.
var ErrNotFound = errors.New("no Chromium or Chrome found on PATH: install Chromium (apt-get install -y chromium) or set browser.bin")

// Find returns the path of the Chromium to start: bin when it is set (a
// command on PATH or a path), else for a headless browser the headless
// shell when it is installed, else the Chromium launcher.LookPath finds.
// It never downloads a browser.
func Find(bin string, headless bool) (string, error) {
	if bin != "" {
		found, err := exec.LookPath(bin)
		if err != nil {
			return "", fmt.Errorf("browser.bin %q is not an executable: %w", bin, err)
		}
		return found, nil
	}
	if headless {
		for _, sh := range shells {
			if found, err := exec.LookPath(sh); err == nil {
				return found, nil
			}
		}
	}
	if found, ok := launcher.LookPath(); ok {
		return found, nil
	}
	return "", ErrNotFound
}

// Launcher is rod's launcher of bin on the profile folder dir with
// toolwright's command line. Callers add what is theirs (leakless, a
// DevTools port) before Launch.
//
//   - Quiet on a closed network: no background networking, component
//     updates, sync, QUIC or first-run work.
//   - Site isolation kept and asked for (rod's launcher turns it off, and
//     the headless shell does not isolate sites unless told): pages meet
//     cross-site frames out of process, as in any Chrome a cdp endpoint
//     offers.
//   - The popup blocker kept (rod's launcher turns it off): a click opens
//     one window, as in any Chrome, and a page calling window.open 1000
//     times in a row opens one, not 1000 pages that each take the
//     engine's guard setup.
//   - No sandbox only when running as root, where Chromium refuses it.
func Launcher(ctx context.Context, bin, dir string, headless bool) *launcher.Launcher {
	l := launcher.New().Context(ctx).
		Bin(bin).
		Headless(headless).
		UserDataDir(dir).
		Set("disable-gpu").
		Set("disable-background-networking").
		Set("disable-component-update").
		Set("no-first-run").
		Set("disable-sync").
		Set("disable-quic").
		Set("disable-features", "TranslateUI").
		Delete("disable-site-isolation-trials").
		Set("site-per-process").
		Delete("disable-popup-blocking")
	if os.Geteuid() == 0 {
		l = l.NoSandbox(true)
	}
	return l
}
