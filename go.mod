module github.com/logbook-project/logbook

go 1.26

require (
	filippo.io/edwards25519 v1.2.0
	github.com/chromedp/cdproto v0.159.0
	github.com/chromedp/chromedp v0.23.0
	github.com/natefinch/atomic v1.0.1
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1
)

require github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
