package client

import "os/exec"

// killGroupOnCancel: Windows has no process groups to kill at once: at
// the timeout cmd.exe is killed (exec's default Cancel), and a child of
// it that holds stdout open is cut off by WaitDelay.
func killGroupOnCancel(cmd *exec.Cmd) {}
