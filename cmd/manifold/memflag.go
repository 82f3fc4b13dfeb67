package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/engine"
)

// byteSize is the value of -max-memory: a number of bytes with an optional
// unit, decimal (kB, MB, GB, TB: powers of 1000) or binary (KiB, MiB, GiB,
// TiB: powers of 1024), units case-insensitive; "0" means no budget.
type byteSize int64

var byteUnits = []struct {
	suffix string
	factor float64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
	{"b", 1},
}

func (b *byteSize) String() string {
	if b == nil || *b == 0 {
		return "0"
	}
	return strconv.FormatInt(int64(*b), 10)
}

func (b *byteSize) Set(s string) error {
	v, err := parseByteSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(v)
	return nil
}

// parseByteSize parses "8GiB", "500MB", "1.5 GB", "1048576".
func parseByteSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	factor := 1.0
	for _, u := range byteUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, factor = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.factor
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || t == "" || strings.ContainsAny(t, "xXpPnN_") {
		return 0, fmt.Errorf("%q is not a size (want a number of bytes with an optional unit: 500MB, 8GiB)", s)
	}
	v *= factor
	switch {
	case v < 0:
		return 0, fmt.Errorf("%q: a memory budget cannot be negative", s)
	case v >= math.MaxInt64:
		return 0, fmt.Errorf("%q: larger than any memory", s)
	case v > 0 && v < 1:
		return 0, fmt.Errorf("%q is less than a byte", s)
	}
	return int64(v), nil
}

// budget returns the memory budget of a run: -max-memory when given (0:
// none), else what the machine or its cgroup has available now, less
// engine.DefaultBudgetMargin (engine.DefaultMaxBytes; 0 where that cannot
// be read).
func budget(maxMemory int64, set bool) int64 {
	if set {
		return maxMemory
	}
	return engine.DefaultMaxBytes()
}

// inputErr names the input a run's error came from; a refusal by the
// default budget (budgetSet false: no -max-memory) also says where that
// budget comes from.
func inputErr(input string, err error, budgetSet bool) error {
	if errors.Is(err, engine.ErrMemoryBudget) && !budgetSet {
		return fmt.Errorf("%s: %w (the default budget: the memory available less 15 %%; -max-memory sets another)", input, err)
	}
	return fmt.Errorf("%s: %w", input, err)
}

// readLimits bounds the reading of an input to the budget: the matrix or
// labels may take at most budget bytes, the (decompressed) input at most 16
// times that, a line dataio.DefaultMaxLine.
func readLimits(budget int64) dataio.Limits {
	return dataio.Limits{MaxBytes: budget}
}

// setMemoryLimit sets the Go runtime's soft memory limit to the memory
// the machine or its cgroup has available, unless GOMEMLIMIT sets one: the
// collector then works harder as the heap nears what is there, instead of
// letting garbage push the process over it.
func setMemoryLimit() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if m := engine.AvailableMemory(); m.Available > 0 {
		debug.SetMemoryLimit(m.Available)
	}
}
