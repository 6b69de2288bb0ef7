module github.com/logbook-project/logbook

go 1.26.0

require (
	filippo.io/edwards25519 v1.2.0
	github.com/bmatcuk/doublestar/v4 v4.10.4
	github.com/natefinch/atomic v1.0.1
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/sys v0.50.0
)
