// Command empty does nothing: the start-up floor of a Go program, beside
// which BenchmarkStartupNetHTTP times one that links net/http.
package main

func main() {}
