package dataio

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestReadLabels(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		names   []string
		class   []int
		numeric bool
	}{
		{"integers", "3\n1\n10\n1\n", []string{"1", "3", "10"}, []int{1, 0, 2, 0}, true},
		{"negative and padded", " -1 \r\n007\n7\n\n\n", []string{"-1", "7"}, []int{0, 1, 1}, true},
		{"strings", "cat\ndog\ncat\nant eater\n", []string{"ant eater", "cat", "dog"}, []int{1, 2, 1, 0}, false},
		{"mixed", "1\ntwo\n10\n", []string{"1", "10", "two"}, []int{0, 2, 1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := ReadLabels(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(l.Names, tc.names) || !reflect.DeepEqual(l.Class, tc.class) || l.Numeric != tc.numeric {
				t.Fatalf("got %+v, want names %v class %v numeric %v", l, tc.names, tc.class, tc.numeric)
			}
		})
	}
}

func TestReadLabelsErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		kind     error
		msg      string
	}{
		{"empty", "", ErrEmpty, "no labels"},
		{"blank only", "\n \n", ErrEmpty, "no labels"},
		{"blank inside", "1\n2\n\n3\n", ErrFormat, "line 3: empty label (a blank line before the label on line 4)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadLabels(strings.NewReader(tc.in))
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %v, want %v containing %q", err, tc.kind, tc.msg)
			}
		})
	}
}
