// Package follow watches in-progress session files while an agent works
// (logbook-verify --follow): it prints each step as it lands, re-checks
// every byte already seen on every change, and stops with an *Alarm the
// moment a step seen earlier is altered, removed or reordered, or the file
// is replaced or deleted.
//
// It watches the directory, not the file: editors and agents replace files
// by rename, and a watch on the old file would go quiet. A full event queue
// (fsnotify.ErrEventOverflow) means events were lost, so everything is
// rescanned; so it is on a timer, as a safety net for changes that raise
// no event (a write through a shared mapping).
package follow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/logbook-project/logbook/internal/bigbuf"
	"github.com/logbook-project/logbook/internal/journalfile"
)

// Suffix names in-progress files in a session directory (journalfile.Path).
const Suffix = ".steps.jsonl"

// Options configure Run.
type Options struct {
	// Dir is the session directory to watch.
	Dir string
	// Session limits the watch to one session id; "" follows every
	// in-progress file in Dir, including ones created later.
	Session string
	// Out receives one line per step and per notice.
	Out io.Writer
	// Rescan is the period of a full rescan besides the events; 0 means
	// none.
	Rescan time.Duration
	// Ready, when not nil, is called once the watch is in place and the
	// files already there are checked (tests wait for it).
	Ready func()
}

// tracked is one in-progress file under watch.
type tracked struct {
	path  string
	ident os.FileInfo // the file first seen at path: a different one is FILE_REPLACED
	buf   []byte      // the last read, reused
	state
}

// Run follows until ctx is done (it returns nil: SIGINT is a clean stop),
// an alarm (it returns the *Alarm), or an error it cannot go on from.
func Run(ctx context.Context, opt Options) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	if err := w.Add(opt.Dir); err != nil {
		return fmt.Errorf("watch %s: %w", opt.Dir, err)
	}
	f := &follower{opt: opt, files: map[string]*tracked{}, initial: true}
	if err := f.scanAll(); err != nil {
		return err
	}
	f.initial = false
	if opt.Session != "" && f.files[opt.Session] == nil {
		f.say("waiting for session %s in %s", opt.Session, opt.Dir)
	}
	if opt.Ready != nil {
		opt.Ready()
	}
	var tick <-chan time.Time
	if opt.Rescan > 0 {
		t := time.NewTicker(opt.Rescan)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick:
			if err := f.scanAll(); err != nil {
				return err
			}
		case err, ok := <-w.Errors:
			if !ok {
				return errors.New("file watch closed")
			}
			if !errors.Is(err, fsnotify.ErrEventOverflow) {
				return fmt.Errorf("watch %s: %w", opt.Dir, err)
			}
			f.say("event queue overflowed: rescanning everything")
			if err := f.scanAll(); err != nil {
				return err
			}
		case ev, ok := <-w.Events:
			if !ok {
				return errors.New("file watch closed")
			}
			// Take every event already queued, then check each file
			// once: a burst of appends costs one read.
			names := map[string]bool{}
			all := f.note(ev, names)
		drain:
			for {
				select {
				case ev := <-w.Events:
					all = f.note(ev, names) || all
				default:
					break drain
				}
			}
			if all {
				if err := f.scanAll(); err != nil {
					return err
				}
				continue
			}
			for _, id := range sortedKeys(names) {
				if err := f.check(id); err != nil {
					return err
				}
			}
		}
	}
}

type follower struct {
	opt   Options
	files map[string]*tracked
	// initial is set during the first scan: steps already in a file are
	// checked in full but summed up, not printed one by one (a long-lived
	// directory would flood the screen before the live output starts).
	initial bool
}

// note files an event: it adds the session it concerns to names, and
// returns true when the directory itself changed (rescan everything).
func (f *follower) note(ev fsnotify.Event, names map[string]bool) bool {
	if filepath.Clean(ev.Name) == filepath.Clean(f.opt.Dir) {
		return true
	}
	if id, ok := f.sessionOf(filepath.Base(ev.Name)); ok {
		names[id] = true
	}
	return false
}

func (f *follower) sessionOf(name string) (string, bool) {
	id, ok := strings.CutSuffix(name, Suffix)
	// Only names the recorder could have written: a file named with a
	// newline or a terminal escape must not reach the output.
	if !ok || journalfile.ValidSessionID(id) != nil || (f.opt.Session != "" && id != f.opt.Session) {
		return "", false
	}
	return id, true
}

// scanAll checks every file under watch and picks up new ones.
func (f *follower) scanAll() error {
	entries, err := os.ReadDir(f.opt.Dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	ids := map[string]bool{}
	for id := range f.files {
		ids[id] = true
	}
	for _, e := range entries {
		if id, ok := f.sessionOf(e.Name()); ok {
			ids[id] = true
		}
	}
	for _, id := range sortedKeys(ids) {
		if err := f.check(id); err != nil {
			return err
		}
	}
	return nil
}

// check reads one session's file again and compares it with what was
// seen. A file never seen and not there is not an error (it may come).
func (f *follower) check(id string) error {
	t := f.files[id]
	if t == nil {
		t = &tracked{path: filepath.Join(f.opt.Dir, id+Suffix), state: state{session: id}}
	}
	// O_NOFOLLOW: a symlink put in the file's place is a replacement.
	file, err := os.OpenFile(t.path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		switch {
		case errors.Is(err, os.ErrNotExist) && t.ident == nil:
			return nil
		case errors.Is(err, os.ErrNotExist):
			return &Alarm{Code: FileRemoved, Session: id, Detail: fmt.Sprintf("%s was deleted after %d step(s) were seen", t.path, t.steps)}
		case errors.Is(err, syscall.ELOOP):
			return &Alarm{Code: FileReplaced, Session: id, Detail: t.path + " is now a symbolic link"}
		}
		return err
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return &Alarm{Code: FileReplaced, Session: id, Detail: fmt.Sprintf("%s is now a %s, not a regular file", t.path, st.Mode().Type())}
	}
	if t.ident != nil && !os.SameFile(t.ident, st) {
		return &Alarm{Code: FileReplaced, Session: id, Detail: fmt.Sprintf("%s now names another file (replaced by rename or copy) after %d step(s) were seen", t.path, t.steps)}
	}
	// The file is read into the same buffer every time: a check costs a
	// read from the page cache, not a new allocation of the file's size.
	if int64(cap(t.buf)) < st.Size()+1 {
		t.buf = make([]byte, 0, st.Size()+st.Size()/8+4096)
	}
	cur, err := bigbuf.ReadInto(file, t.buf[:0])
	if err != nil {
		return err
	}
	t.buf = cur
	first := t.ident == nil
	if first {
		t.ident = st
		f.files[id] = t
	}
	news, torn, alarm := t.update(cur)
	switch {
	case first && f.initial && alarm == nil:
		f.say("following session %s (%s): %d step(s) already there, chain intact", id, t.path, len(news))
		if len(news) > 0 {
			f.step(id, news[len(news)-1])
		}
	default:
		if first {
			f.say("following session %s (%s)", id, t.path)
		}
		for _, s := range news {
			f.step(id, s)
		}
	}
	if alarm != nil {
		return alarm
	}
	if torn > 0 && torn != t.torn {
		where := fmt.Sprintf("after step %d", t.steps-1)
		if t.steps == 0 {
			where = "before any step"
		}
		f.say("session %s: %d bytes %s are not a complete line yet (an append in flight, or a torn tail that the next append or the seal cuts and records)", id, torn, where)
	}
	t.torn = torn
	return nil
}

func (f *follower) step(id string, s Step) {
	at := oneLine(s.At)
	if tm, err := time.Parse(time.RFC3339Nano, s.At); err == nil {
		at = tm.UTC().Format("15:04:05.000")
	}
	prefix := ""
	if f.opt.Session == "" {
		prefix = id + " "
	}
	fmt.Fprintf(f.opt.Out, "%s%s #%d %-9s %s\n", prefix, at, s.Seq, oneLine(s.Kind), oneLine(s.Summary))
}

func (f *follower) say(format string, a ...any) {
	fmt.Fprintf(f.opt.Out, "-- "+format+"\n", a...)
}

func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r >= 0x7f && r <= 0x9f || r == 0x2028 || r == 0x2029 {
			return ' '
		}
		return r
	}, s)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
