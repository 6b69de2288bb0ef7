package review_test

import (
	"crypto/ed25519"

	"github.com/logbook-project/logbook/internal/testkit/reviewtest"
)

func reviewtestKey() ed25519.PrivateKey { return reviewtest.Key }
