package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestHelpOnceAndComplete: -h prints the usage once, and embed's lists
// every method of the table.
func TestHelpOnceAndComplete(t *testing.T) {
	for _, sub := range []string{"embed", "project", "serve", "demo"} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{sub, "-h"}, env{stdout: &out, stderr: &errb}); code != 0 {
			t.Errorf("%s -h: status %d, %s", sub, code, errb.String())
		}
		if n := strings.Count(out.String(), "usage:"); n != 1 {
			t.Errorf("%s -h printed the usage %d times", sub, n)
		}
		if sub == "embed" {
			for _, m := range methods {
				if !strings.Contains(embedHelp, m.name+",") && !strings.Contains(embedHelp, m.name+".") {
					t.Errorf("embed -h does not list %s", m.name)
				}
			}
			if !strings.Contains(out.String(), "lda: classes − 1") {
				t.Error("embed -h does not say LDA's default dimension")
			}
		}
	}
}
