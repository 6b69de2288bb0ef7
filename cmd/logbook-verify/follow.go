package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/logbook-project/logbook"
	"github.com/logbook-project/logbook/internal/follow"
)

// runFollow watches until SIGINT or SIGTERM (exit 0), an alarm (printed,
// exit 1) or an error (exit 2).
func runFollow(arg string, stdout, stderr io.Writer) int {
	opt, err := follow.Target(arg, os.Getenv)
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
