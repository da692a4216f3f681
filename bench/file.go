package bench

import (
	"os"
	"path/filepath"
)

// WriteFile writes b to path atomically, making its directory: through a
// temporary file beside it, renamed over it, so a crash mid-write leaves the
// previous file, never half of one.
func WriteFile(path string, b []byte) error {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
