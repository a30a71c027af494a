package yamlx

import (
	"fmt"
	"io/fs"
	"os"
)

// ReadFile reads the file at path (symlinks followed) only when it is a
// regular file: a named pipe, a device or a socket named like a YAML file
// would block a reader forever or never end, so it is refused with an
// error saying what it is. Directories are refused too.
func ReadFile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("not a regular file (%s): skipped", kindOf(fi.Mode()))}
	}
	return os.ReadFile(path)
}

// kindOf names a file mode's type for a message.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "not a file"
}
