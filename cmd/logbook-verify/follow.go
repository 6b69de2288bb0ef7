package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/logbook-project/logbook"
	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/follow"
	"github.com/logbook-project/logbook/internal/journal"
)

// followTarget turns --follow's argument into a directory and a session:
// a directory (every session in it), an in-progress file (that session),
// or a session id in the default session directory.
func followTarget(arg string) (follow.Options, error) {
	var opt follow.Options
	byID := false
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		opt.Dir = arg
		return opt, nil
	}
	if id, ok := strings.CutSuffix(filepath.Base(arg), follow.Suffix); ok {
		opt.Dir, opt.Session = filepath.Dir(arg), id
	} else {
		byID = true
		dir, err := cli.Dir("", os.Getenv)
		if err != nil {
			return opt, err
		}
		opt.Dir, opt.Session = dir, arg
	}
	if err := journal.ValidSessionID(opt.Session); err != nil {
		return opt, fmt.Errorf("--follow %s: not a directory, an in-progress file or a session id: %v", arg, err)
	}
	if byID {
		// A bare id is most often a typo: say which sessions exist. A
		// file path may name a session about to start, and waits.
		if err := sessionExists(opt.Dir, opt.Session, arg); err != nil {
			return opt, err
		}
	}
	return opt, nil
}

// runFollow watches until SIGINT or SIGTERM (exit 0), an alarm (printed,
// exit 1) or an error (exit 2).
func runFollow(arg string, stdout, stderr io.Writer) int {
	opt, err := followTarget(arg)
	if err != nil {
		fmt.Fprintln(stderr, "logbook-verify:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = logbook.Follow(ctx, opt.Dir, logbook.FollowOptions{Session: opt.Session, Out: stdout})
	var alarm *logbook.Alarm
	switch {
	case errors.As(err, &alarm):
		fmt.Fprintln(stdout, alarm.Error())
		return 1
	case err != nil:
		fmt.Fprintln(stderr, "logbook-verify:", err)
		return 2
	}
	fmt.Fprintln(stdout, "-- stopped")
	return 0
}
