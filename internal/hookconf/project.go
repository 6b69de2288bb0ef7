package hookconf

// ProjectTarget is how a project's configuration (committed with it, so
// free of absolute paths) calls the binaries in PROJECT/.logbook/bin.
func ProjectTarget(spec *Spec) Target {
	bin := ".logbook/bin"
	if spec.Root != "" {
		bin = spec.Root + "/.logbook/bin"
	}
	return Target{Spec: spec, Bin: bin, DirFlag: ProjectDirFlag(spec)}
}

// ProjectDirFlag is the --dir a project's hooks pass, so records land in
// PROJECT/.logbook wherever the harness runs the hook. Claude Code's hooks
// need none: record-step finds $CLAUDE_PROJECT_DIR itself.
func ProjectDirFlag(spec *Spec) string {
	switch spec.Root {
	case `"$CLAUDE_PROJECT_DIR"`:
		return ""
	case "":
		return " --dir .logbook"
	}
	return " --dir " + spec.Root + "/.logbook"
}
