package wrap_test

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/logbook-project/logbook/wrap"
)

func ExampleRun() {
	dir, _ := os.MkdirTemp("", "logbook-example-")
	defer os.RemoveAll(dir)
	// Pass ^C and kill on to the command rather than die before its end
	// is recorded.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)

	var out bytes.Buffer
	code, err := wrap.Run(dir, "build", wrap.Command{
		Args:   []string{"sh", "-c", "echo built; exit 3"},
		Stdout: &out,
	}, wrap.Options{Agent: "make", Goal: "build it", Recorder: "my-wrapper", Signals: sigs})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("exit %d, output %q\n", code, out.String())
	// Output: exit 3, output "built\n"
}
