// Package instant reads and writes the timestamps of spec §4: RFC 3339 UTC,
// YYYY-MM-DDTHH:MM:SS with an optional fraction of 1-9 digits and a Z, naming
// a real calendar instant (no leap second).
package instant

import (
	"fmt"
	"time"
)

// Format turns t into the spec's form (UTC, trailing fraction zeros dropped).
func Format(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.999999999Z")
}

// Valid reports whether s is a timestamp of spec §4: the form of Pattern
// and a real calendar instant.
func Valid(s string) bool {
	if !Pattern(s) {
		return false
	}
	// The day against the month, leap years included, as time.Parse
	// checks it (TestValidMatchesTimeParse), without its cost: a verifier
	// checks one instant per step.
	year := int(s[0]-'0')*1000 + int(s[1]-'0')*100 + int(s[2]-'0')*10 + int(s[3]-'0')
	month := int(s[5]-'0')*10 + int(s[6]-'0')
	day := int(s[8]-'0')*10 + int(s[9]-'0')
	return day <= daysIn(month, year)
}

// daysIn is the number of days in a month (1-12) of a proleptic Gregorian year.
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// Pattern reports whether s matches the schema's timestamp pattern
// (schema/record.schema.json, $defs/timestamp) exactly:
// ^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,9})?Z$
func Pattern(s string) bool {
	if len(s) < 20 || s[len(s)-1] != 'Z' {
		return false
	}
	body := s[:len(s)-1]
	frac := ""
	if len(body) > 19 {
		frac = body[19:]
		body = body[:19]
		if len(frac) < 2 || len(frac) > 10 || frac[0] != '.' || !digits(frac[1:]) {
			return false
		}
	}
	for i := 0; i < 19; i++ {
		c := body[i]
		switch i {
		case 4, 7:
			if c != '-' {
				return false
			}
		case 10:
			if c != 'T' {
				return false
			}
		case 13, 16:
			if c != ':' {
				return false
			}
		default:
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	num := func(i int) int { return int(body[i]-'0')*10 + int(body[i+1]-'0') }
	month, day, hour, minute, second := num(5), num(8), num(11), num(14), num(17)
	return month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59 && second <= 59
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Now returns the current instant in the spec's form: the value of
// LOGBOOK_NOW when env holds one (reproducible runs), else clock().
func Now(env string, clock func() time.Time) (string, error) {
	if env == "" {
		return Format(clock()), nil
	}
	if !Valid(env) {
		return "", fmt.Errorf("LOGBOOK_NOW=%q is not an RFC 3339 UTC instant like 2026-01-02T03:04:05Z", env)
	}
	return env, nil
}
