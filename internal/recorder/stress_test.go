package recorder

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/seal"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/testkit/testreport"
)

// The tests below start this test binary again as a worker process (the
// environment says what to do), so that appends race across real
// processes and real flocks, and a worker can be killed mid-append.
//
//	LOGBOOK_WORKER=DIR,ID,N,PAD   record N events of session ID into DIR,
//	                              each with PAD bytes of tool input, and
//	                              print each event's id once it is recorded
//	LOGBOOK_WORKER_TEAR=K         the worker's first write puts K bytes of
//	                              its buffer on disk and then the worker
//	                              SIGKILLs itself: a death inside write(2)
func TestMain(m *testing.M) {
	if spec := os.Getenv("LOGBOOK_WORKER"); spec != "" {
		os.Exit(worker(spec))
	}
	os.Exit(m.Run())
}

func worker(spec string) int {
	f := strings.Split(spec, ",")
	if len(f) != 4 {
		fmt.Fprintln(os.Stderr, "bad LOGBOOK_WORKER", spec)
		return 3
	}
	dir, id, prefix := f[0], f[1], f[1]+"-"+strconv.Itoa(os.Getpid())
	n, _ := strconv.Atoi(f[2])
	pad, _ := strconv.Atoi(f[3])
	if k, err := strconv.Atoi(os.Getenv("LOGBOOK_WORKER_TEAR")); err == nil {
		journalfile.FS.Write = func(file *os.File, b []byte) (int, error) {
			if k >= len(b) {
				k = len(b) - 1
			}
			file.Write(b[:k])
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // never returns
		}
	}
	out := bufio.NewWriter(os.Stdout)
	for i := 0; i < n; i++ {
		ev := fmt.Sprintf("%s-%d", prefix, i)
		p := fmt.Sprintf(`{"session_id":%q,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":%q,"tool_input":{"command":"echo %s","pad":%q}}`,
			id, ev, ev, strings.Repeat("p", pad))
		if _, err := Record(dir, []byte(p), "2026-05-01T00:00:00Z", "/w", Options{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Fprintln(out, ev)
		out.Flush() // acknowledged: this event must survive anything that follows
	}
	return 0
}

func startWorker(t *testing.T, dir, id string, n, pad int, env ...string) (*exec.Cmd, *bytes.Buffer) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env, fmt.Sprintf("LOGBOOK_WORKER=%s,%s,%d,%d", dir, id, n, pad))...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}

// sealAndVerify seals the session (cutting a torn tail, noting it) and
// verifies the record; it returns the toolUseId of every step, the count
// of torn-tail notes, and the number of steps.
func sealAndVerify(t *testing.T, dir, id string) (ids map[string]int, tornNotes, steps int) {
	t.Helper()
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))
	j, err := journalfile.Open(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	res, err := seal.Seal(j, priv, seal.Options{Now: "2026-05-01T00:00:01Z", Cwd: "/w"})
	if err != nil {
		t.Fatalf("seal: %v", err)
	}
	v := record.Verify(res.Record, record.Options{Pinned: []ed25519.PublicKey{priv.Public().(ed25519.PublicKey)}})
	if !v.OK {
		t.Fatalf("the sealed record is refused: %s %s", v.Code, v.Detail)
	}
	// The steps as sealed, read back from the in-progress file.
	ids = map[string]int{}
	_, st, err := j.ReadAll(func(i int, s *strictjson.Value) error {
		d := s.Get("data")
		if ev, _ := d.GetString("event"); ev == "logbook.tornTail" {
			tornNotes++
		}
		if u, ok := d.GetString("toolUseId"); ok {
			ids[u]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids, tornNotes, st.Count
}

// TestStressParallelProcesses: 16 processes append 300 events each to one
// session at once. Every event is there exactly once, seqs are contiguous
// and the chain intact (journalfile.ReadAll checks both), and the sealed
// record verifies.
func TestStressParallelProcesses(t *testing.T) {
	const procs, events = 16, 300
	dir := t.TempDir()
	var acked [procs]*bytes.Buffer
	var cmds [procs]*exec.Cmd
	for p := 0; p < procs; p++ {
		cmds[p], acked[p] = startWorker(t, dir, "stress", events, 64)
	}
	for p := 0; p < procs; p++ {
		if err := cmds[p].Wait(); err != nil {
			t.Fatalf("worker %d: %v", p, err)
		}
	}
	ids, _, steps := sealAndVerify(t, dir, "stress")
	want := 0
	for p := 0; p < procs; p++ {
		for _, ev := range strings.Fields(acked[p].String()) {
			want++
			if ids[ev] != 1 {
				t.Errorf("event %s recorded %d times", ev, ids[ev])
			}
		}
	}
	if want != procs*events || len(ids) != want {
		t.Fatalf("%d events acknowledged, %d distinct in the record, want %d", want, len(ids), procs*events)
	}
	// Every event a PreToolUse with no PostToolUse: the seal adds one note.
	if steps != want+1 {
		t.Fatalf("%d steps for %d events", steps, want)
	}
	testreport.Line(t, fmt.Sprintf("stress: %d processes x %d events on one session: %d steps, every event once, seqs contiguous, chain intact, record verifies", procs, events, steps))
}

// TestCrashTrials kills writers at random points, in two ways, again and
// again on one session: SIGKILL from outside at a random moment while a
// worker appends (it may die anywhere: before the lock, holding it, in or
// after its write), and a worker that dies inside write(2) with a random
// part of its buffer on disk (a torn last line, every time). After each
// trial no byte of an earlier complete line has changed; at the end the
// session seals and verifies, holds every acknowledged event exactly once,
// and says in a note for each torn write that its bytes were cut.
func TestCrashTrials(t *testing.T) {
	kills, tears := 100, 100
	if testing.Short() {
		kills, tears = 20, 20
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	var acked []string
	var prefix []byte // the complete lines seen after the previous trial
	check := func(trial string) {
		data, err := os.ReadFile(journalfile.Path(dir, "crash"))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, prefix) {
			t.Fatalf("%s: earlier complete lines changed", trial)
		}
		prefix = data[:bytes.LastIndexByte(data, '\n')+1]
	}
	order := make([]bool, kills+tears) // true: a tear trial
	for i := kills; i < len(order); i++ {
		order[i] = true
	}
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	for n, tear := range order {
		if tear {
			cmd, out := startWorker(t, dir, "crash", 1, rng.IntN(3000), fmt.Sprintf("LOGBOOK_WORKER_TEAR=%d", 1+rng.IntN(4000)))
			err := cmd.Wait()
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("tear trial %d: worker was not killed inside its write: %v", n, err)
			}
			if out.Len() > 0 {
				t.Fatalf("tear trial %d: a torn event was acknowledged", n)
			}
		} else {
			// Kill at a random moment once the worker is appending: after
			// its first acknowledgement, 0-10 ms into its loop.
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), fmt.Sprintf("LOGBOOK_WORKER=%s,crash,100000,%d", dir, rng.IntN(3000)))
			pipe, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(pipe)
			if sc.Scan() {
				acked = append(acked, sc.Text())
			}
			time.Sleep(time.Duration(rng.IntN(10000)) * time.Microsecond)
			cmd.Process.Signal(syscall.SIGKILL)
			for sc.Scan() {
				acked = append(acked, sc.Text())
			}
			cmd.Wait()
		}
		check(fmt.Sprintf("trial %d", n))
	}
	ids, tornNotes, _ := sealAndVerify(t, dir, "crash")
	for _, ev := range acked {
		if ids[ev] != 1 {
			t.Errorf("acknowledged event %s recorded %d times", ev, ids[ev])
		}
	}
	for ev, n := range ids {
		if n != 1 {
			t.Errorf("event %s recorded %d times", ev, n)
		}
	}
	// Every torn write is noted; a writer killed between writing its notes
	// and emptying the list of cuts makes a later one note them again.
	if tornNotes < tears {
		t.Errorf("%d torn-tail notes for %d torn writes", tornNotes, tears)
	}
	testreport.Line(t, fmt.Sprintf("crash: %d SIGKILL trials and %d torn-write trials on one session: %d acknowledged events all present once, %d torn tails cut and noted, record verifies",
		kills, tears, len(acked), tornNotes))
}
