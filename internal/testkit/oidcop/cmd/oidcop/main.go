// Command oidcop is the OpenID provider the tests start
// (internal/testkit/oidcop.Start): it listens on -addr, prints its issuer
// URL on a line of its own, and serves until killed.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/logbook-project/logbook/internal/testkit/oidcop/opserver"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	flag.Parse()
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "oidcop:", err)
		os.Exit(1)
	}
	issuer := "http://" + l.Addr().String()
	fmt.Println(issuer)
	fmt.Fprintln(os.Stderr, "oidcop:", http.Serve(l, opserver.Handler(issuer)))
	os.Exit(1)
}
