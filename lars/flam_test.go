package lars_test

import (
	"testing"

	"github.com/manifoldlab/manifold/lars"
)

// The LARS counts against hand counts for small sizes.
func TestFlamCounts(t *testing.T) {
	cases := []struct {
		name      string
		got, want float64
	}{
		{"GramFlam", lars.GramFlam(10, 3), 60 + 30},
		// k = 2 of p = 5, n = 10, with the Gram matrix: 4 + 10 + 2 + 20.
		{"StepFlam gram", lars.StepFlam(10, 5, 2, true), 4 + 10 + 2 + 20},
		// without: 4 + 20 + 50 + 2 + 20 + 20 + 20.
		{"StepFlam x", lars.StepFlam(10, 5, 2, false), 4 + 20 + 50 + 2 + 20 + 20 + 20},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}
