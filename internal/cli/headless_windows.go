package cli

const (
	terminalPath  = "CONOUT$" // the console the process was started from
	terminalFlags = 0
)
