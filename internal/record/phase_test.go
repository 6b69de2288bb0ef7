package record

import (
	"os"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/strictjson"
)

func TestPhases(t *testing.T) {
	data, err := os.ReadFile(os.Getenv("REC"))
	if err != nil {
		t.Skip()
	}
	t0 := time.Now()
	rec, _ := strictjson.Parse(data, strictjson.Options{MaxDepth: 64})
	t1 := time.Now()
	checkValues(rec)
	t2 := time.Now()
	checkSchema(rec)
	t3 := time.Now()
	checkInstants(rec)
	t4 := time.Now()
	sj, _, _ := chainAndSteps(rec.Get("steps"), make([]byte, 0, len(data)+1024))
	t5 := time.Now()
	checkSignature(partsOf(rec), sj, 100000, Options{})
	t6 := time.Now()
	t.Logf("size %d parse %v values %v schema %v instants %v chain %v sig %v", len(data), t1.Sub(t0), t2.Sub(t1), t3.Sub(t2), t4.Sub(t3), t5.Sub(t4), t6.Sub(t5))
}
