package agent

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bridle-dev/bridle/internal/clip"
	"github.com/bridle-dev/bridle/llm"
)

// SessionVersion is the version of the session format this package writes.
// [Store.Load] reads files of this version and older, and refuses newer ones.
const SessionVersion = 1

// Session is a saved conversation: what [Agent.Save] copies out of an agent
// and [Agent.Load] puts back, and what a [Store] keeps as one JSON file.
type Session struct {
	// Version is the format's version; [Store.Save] sets it.
	Version int `json:"version"`
	// ID names the session in its store: letters, digits, '-' and '_'. An
	// empty ID gets a new one from [Store.Save].
	ID string `json:"id"`
	// Title is a line for a list of sessions; [Agent.Save] sets it from the
	// first question when it is empty.
	Title string `json:"title,omitempty"`
	// Model is the model that answered last.
	Model string `json:"model,omitempty"`
	// Created and Updated are when the session was first and last saved;
	// [Store.Save] sets them.
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// History is the conversation, oldest first.
	History []llm.Message `json:"history"`
	// Usage is the tokens (and their cost) of every run of the session.
	Usage llm.Usage `json:"usage"`
	// Costs breaks Usage down by model and by tool.
	Costs Costs `json:"costs,omitzero"`
	// Checkpoints are what [Options.Checkpoints] recorded before the Write
	// calls still in the history, oldest first: [Agent.Rewind] restores
	// them.
	Checkpoints []Checkpoint `json:"checkpoints,omitempty"`
}

// SessionInfo is what [Store.List] tells of a session without its history.
type SessionInfo struct {
	ID       string
	Title    string
	Model    string
	Created  time.Time
	Updated  time.Time
	Messages int // the length of the history
}

// Save copies the agent's conversation into s: history, usage and costs, checkpoints,
// the model that answered last, and, when s has no title, one made from the
// first question. It leaves s's ID and times alone: [Store.Save] writes s.
func (a *Agent) Save(s *Session) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s.History = copyHistory(a.history)
	s.Usage = a.usage
	s.Costs = a.costs.clone()
	s.Checkpoints = slices.Clone(a.checkpoints)
	if m := a.lastModel(); m != "" {
		s.Model = m
	}
	if s.Title == "" {
		s.Title = title(a.history)
	}
}

// Load replaces the agent's conversation with s's: history, usage, costs
// and checkpoints. It returns an error, changing nothing, when the history
// could not be sent (see [Agent.SetHistory]) or a checkpoint names a
// message that is not a reply; [ErrBusy] during a Run.
func (a *Agent) Load(s *Session) error {
	if s == nil {
		return errors.New("agent: load: the session is nil")
	}
	if err := validate(s.History); err != nil {
		return fmt.Errorf("agent: session %q: %w", s.ID, err)
	}
	for _, c := range s.Checkpoints {
		if c.Message < 0 || c.Message >= len(s.History) || s.History[c.Message].Role != llm.Assistant {
			return fmt.Errorf("agent: session %q: a checkpoint of call %q names message %d, which is not a reply", s.ID, c.Call, c.Message)
		}
	}
	if !a.running.TryLock() {
		return ErrBusy
	}
	defer a.running.Unlock()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.history = copyHistory(s.History)
	a.usage = s.Usage
	a.costs = s.Costs.clone()
	a.checkpoints = slices.Clone(s.Checkpoints)
	a.model = s.Model
	a.gauge = gauge{}
	return nil
}

// title is the first line of the first question, cut to 80 bytes.
func title(h []llm.Message) string {
	for _, m := range h {
		if m.Role != llm.User {
			continue
		}
		for _, p := range m.Parts {
			if p.Type != llm.PartText {
				continue
			}
			line, _, _ := strings.Cut(strings.TrimSpace(p.Text), "\n")
			if line = strings.TrimSpace(line); line != "" {
				return clip.String(line, 80)
			}
		}
	}
	return ""
}

// Store keeps sessions as one JSON file each, <id>.json, in a folder.
// Writes are atomic: a reader sees the old file or the new one, never a
// mix. Its methods are safe to call from several goroutines; two processes
// saving one session leave the last one's.
type Store struct {
	// Dir is the folder; it is made (0700) on the first Save. Required.
	Dir string
	// Now returns the time Save records; nil means time.Now.
	Now func() time.Time
}

// ErrNoSession is returned, wrapped, by [Store.Load] and [Store.Delete] for
// an id the store does not have.
var ErrNoSession = errors.New("no such session")

// NewSessionID returns a new session id: the UTC time to the second, then
// eight random hex digits, so that ids sort by creation.
func NewSessionID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

func checkID(id string) error {
	if id == "" || len(id) > 128 || strings.HasPrefix(id, ".") || strings.ContainsFunc(id, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
	}) {
		return fmt.Errorf("agent: session id %q is not valid: use 1 to 128 letters, digits, '-', '_' or '.', not starting with '.'", id)
	}
	return nil
}

func (st *Store) path(id string) (string, error) {
	if st.Dir == "" {
		return "", errors.New("agent: the session store has no folder: set Store.Dir")
	}
	if err := checkID(id); err != nil {
		return "", err
	}
	return filepath.Join(st.Dir, id+".json"), nil
}

func (st *Store) now() time.Time {
	if st.Now != nil {
		return st.Now()
	}
	return time.Now()
}

// Save writes s to its file, replacing the one before. It gives s a new ID
// when it has none, sets Version, Created (when zero) and Updated, and
// makes the folder when it is missing.
func (st *Store) Save(s *Session) error {
	if s.ID == "" {
		s.ID = NewSessionID()
	}
	path, err := st.path(s.ID)
	if err != nil {
		return err
	}
	now := st.now().UTC()
	s.Version = SessionVersion
	if s.Created.IsZero() {
		s.Created = now
	}
	s.Updated = now
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("agent: session %q: %w", s.ID, err)
	}
	if err := os.MkdirAll(st.Dir, 0o700); err != nil {
		return fmt.Errorf("agent: session store: %w", err)
	}
	if err := writeAtomic(path, data); err != nil {
		return fmt.Errorf("agent: saving session %q: %w", s.ID, err)
	}
	return nil
}

// writeAtomic writes data to a new file beside path, syncs it, and renames
// it over path.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // the rename survives a crash where the file system allows
		d.Close()
	}
	return nil
}

// Load reads the session with the given id. The error wraps [ErrNoSession]
// when there is none, and says so when the file was written by a newer
// version of this package or is not a session.
func (st *Store) Load(id string) (*Session, error) {
	path, err := st.path(id)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("agent: session %q: %w in %s", id, ErrNoSession, st.Dir)
	}
	if err != nil {
		return nil, fmt.Errorf("agent: loading session %q: %w", id, err)
	}
	return decodeSession(path, data)
}

// sessionHead is what a list needs of a session file: the messages are
// counted, not decoded.
type sessionHead struct {
	Version *int       `json:"version"`
	Title   string     `json:"title"`
	Model   string     `json:"model"`
	Created time.Time  `json:"created"`
	Updated time.Time  `json:"updated"`
	History []struct{} `json:"history"`
}

func decodeHead(path string, data []byte) (*sessionHead, error) {
	if err := checkVersion(path, data); err != nil {
		return nil, err
	}
	var head sessionHead
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("agent: %s is not a valid session: %w", path, err)
	}
	return &head, nil
}

// checkVersion refuses a file that is not a session, or that a newer
// version of this package wrote.
func checkVersion(path string, data []byte) error {
	var head struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("agent: %s is not a session file: %w", path, err)
	}
	switch {
	case head.Version == nil || *head.Version < 1:
		return fmt.Errorf("agent: %s is not a session file: it has no format version", path)
	case *head.Version > SessionVersion:
		return fmt.Errorf("agent: %s was written by a newer version of bridle (session format %d; this one reads up to %d): upgrade to open it", path, *head.Version, SessionVersion)
	}
	return nil
}

func decodeSession(path string, data []byte) (*Session, error) {
	if err := checkVersion(path, data); err != nil {
		return nil, err
	}
	s := new(Session)
	d := json.NewDecoder(bytes.NewReader(data))
	if err := d.Decode(s); err != nil {
		return nil, fmt.Errorf("agent: %s is not a valid session: %w", path, err)
	}
	return s, nil
}

// List returns the sessions of the store, the most recently updated first.
// A file that cannot be read as a session is left out, and the error
// returned with the list names it; a missing folder is an empty list.
func (st *Store) List() ([]SessionInfo, error) {
	if st.Dir == "" {
		return nil, errors.New("agent: the session store has no folder: set Store.Dir")
	}
	entries, err := os.ReadDir(st.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("agent: session store: %w", err)
	}
	var out []SessionInfo
	var errs []error
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !e.Type().IsRegular() || checkID(id) != nil {
			continue
		}
		path := filepath.Join(st.Dir, e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s, err := decodeHead(path, data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, SessionInfo{ID: id, Title: s.Title, Model: s.Model, Created: s.Created, Updated: s.Updated, Messages: len(s.History)})
	}
	slices.SortStableFunc(out, func(x, y SessionInfo) int {
		if c := y.Updated.Compare(x.Updated); c != 0 {
			return c
		}
		return strings.Compare(y.ID, x.ID)
	})
	return out, errors.Join(errs...)
}

// Delete removes the session with the given id; the error wraps
// [ErrNoSession] when there is none.
func (st *Store) Delete(id string) error {
	path, err := st.path(id)
	if err != nil {
		return err
	}
	if err := os.Remove(path); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("agent: session %q: %w in %s", id, ErrNoSession, st.Dir)
	} else if err != nil {
		return fmt.Errorf("agent: deleting session %q: %w", id, err)
	}
	return nil
}
