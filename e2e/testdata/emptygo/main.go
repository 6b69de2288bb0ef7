// Command emptygo does nothing: the floor of any Go program's start-up,
// measured beside record-step (BenchmarkHookFloor).
package main

func main() {}
