package server_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/server"
)

// TestSlowClientsHoldNoSlot: clients that send their headers and then
// trickle their bodies (up to the read deadline) do not hold the append
// slots: with every slow client mid-body, another client's event is
// recorded at once, not refused BUSY; the slow ones are recorded too
// once their bodies arrive.
func TestSlowClientsHoldNoSlot(t *testing.T) {
	const appends, slow = 2, 6
	defer server.SetSlotWait(2 * time.Second)()
	f := newServer(t, func(c *server.Config, _ *http.Server) { c.Appends = appends })
	type conn struct {
		c    net.Conn
		rest string
	}
	var conns []conn
	for i := 0; i < slow; i++ {
		c, err := net.Dial("tcp", f.ts.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		body := string(event(fmt.Sprintf("slow-%d", i), "PreToolUse", i))
		fmt.Fprintf(c, "POST /v1/hooks/claude-code HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:10])
		conns = append(conns, conn{c, body[10:]})
	}
	// Give the slow requests a moment to reach the handler (where, read
	// after the slot was taken, their bodies held every slot). Not an
	// assertion: the fixed server holds no slot for them at all.
	for i := 0; i < 100 && f.srv.SlotsInUse() < appends; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if code, b := post(t, http.DefaultClient, f.ts.URL+"/v1/hooks/claude-code", event("fast", "PreToolUse", 1)); code != 200 || b != "" {
		t.Fatalf("with %d slow clients mid-body: %d %s", slow, code, b)
	}
	for i, c := range conns {
		fmt.Fprint(c.c, c.rest)
		c.c.SetReadDeadline(time.Now().Add(60 * time.Second))
		line, err := bufio.NewReader(c.c).ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "HTTP/1.1 200 ") {
			t.Errorf("slow client %d: %q %v", i, line, err)
		}
	}
	for _, id := range []string{"fast", "slow-0", fmt.Sprintf("slow-%d", slow-1)} {
		if lines := readLines(t, journalfile.Path(f.opts.Dir, id)); len(lines) < 2 {
			t.Errorf("%s: %d lines", id, len(lines))
		}
	}
}
