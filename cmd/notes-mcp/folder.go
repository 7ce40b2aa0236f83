package main

import (
	"errors"
	"path/filepath"
	"runtime"
	"strings"
)

// notesDir returns the folder the notes live in: dir when set (from
// --dir), else $NOTES_DIR, else the user's data folder:
// $XDG_DATA_HOME/notes-mcp, %APPDATA%\notes-mcp on Windows, or
// ~/.local/share/notes-mcp. A leading "~/" means the home folder, since
// clients that start the server run no shell to expand it. The result is
// absolute.
func notesDir(dir string, getenv func(string) string) (string, error) {
	if dir == "" {
		dir = getenv("NOTES_DIR")
	}
	if dir == "" {
		switch xdg := getenv("XDG_DATA_HOME"); {
		case filepath.IsAbs(xdg):
			dir = filepath.Join(xdg, "notes-mcp")
		case runtime.GOOS == "windows" && getenv("APPDATA") != "":
			dir = filepath.Join(getenv("APPDATA"), "notes-mcp")
		default:
			dir = filepath.Join("~", ".local", "share", "notes-mcp")
		}
	}
	if dir == "~" || strings.HasPrefix(dir, "~/") || strings.HasPrefix(dir, "~"+string(filepath.Separator)) {
		home := homeDir(getenv)
		if home == "" {
			return "", errors.New("cannot find the home folder to keep the notes in: set NOTES_DIR or pass --dir")
		}
		dir = filepath.Join(home, dir[1:])
	}
	return filepath.Abs(dir)
}

func homeDir(getenv func(string) string) string {
	if runtime.GOOS == "windows" {
		return getenv("USERPROFILE")
	}
	return getenv("HOME")
}
