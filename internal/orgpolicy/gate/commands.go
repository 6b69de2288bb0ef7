package gate

import "github.com/logbook-project/logbook/internal/shellcmd"

// Commands is what the rules see of a call's shell command
// (docs/policy.md §3): the tool input's "command", a command line (Bash,
// run_shell_command, Cursor's beforeShellExecution) or an argument vector,
// read by shellcmd into its simple commands, each a map of program, path,
// args, redirects and dynamic; and why it could not be read ("" when it
// could, or when the call has no command). What was read before an error
// is given with it.
func Commands(toolInput any) ([]any, string) {
	m, ok := toolInput.(map[string]any)
	if !ok {
		return []any{}, ""
	}
	var cmds []shellcmd.Command
	var err error
	switch c := m["command"].(type) {
	case string:
		cmds, err = shellcmd.Parse(c)
	case []any:
		argv := make([]string, len(c))
		for i, a := range c {
			s, ok := a.(string)
			if !ok {
				return []any{}, "the command's argument vector holds a value that is not a string"
			}
			argv[i] = s
		}
		cmds, err = shellcmd.FromArgv(argv)
	}
	out := make([]any, len(cmds))
	for i, c := range cmds {
		out[i] = map[string]any{"program": c.Program, "path": c.Path, "args": c.Args,
			"redirects": c.Redirects, "dynamic": c.Dynamic}
	}
	if err != nil {
		return out, err.Error()
	}
	return out, ""
}
