package review_test

import (
	"crypto/ed25519"

	"github.com/logbook-project/logbook/internal/review/reviewtest"
)

func reviewtestKey() ed25519.PrivateKey { return reviewtest.Key }
