// Command nethttp links net/http (its client, as a forwarding hook would)
// and does nothing with it unless given an argument: what linking it costs
// every start-up.
package main

import (
	"net/http"
	"os"
)

func main() {
	if len(os.Args) > 1 {
		http.Post(os.Args[1], "application/json", nil)
	}
}
