package dataio

import (
	"context"
	"io"
	"sort"
	"strconv"
)

// Labels are class labels of samples, read from a file with one label per
// line.
type Labels struct {
	// Names are the distinct labels, sorted: numerically when every label
	// is an integer (then written in canonical form, "007" as "7"),
	// lexically otherwise.
	Names []string
	// Class holds, for every sample, the index of its label in Names
	// (0 ≤ Class[i] < len(Names)).
	Class []int
	// Numeric says every label is an integer.
	Numeric bool
}

// ReadLabels reads one label per line (integers or strings; see the
// package documentation), decompressing gzip input. Errors about the
// content wrap ErrFormat or ErrEmpty and name the line. It is
// ReadLabelsCtx with no context and the zero Limits.
func ReadLabels(r io.Reader) (*Labels, error) {
	return ReadLabelsCtx(context.Background(), r, Limits{})
}

// ReadLabelsCtx is ReadLabels within lim (a label costs its bytes and 24
// more: string header and index), stopping with ctx's error once ctx
// is done.
func ReadLabelsCtx(ctx context.Context, r io.Reader, lim Limits) (*Labels, error) {
	br, closeZ, err := source(ctx, r, lim)
	if err != nil {
		return nil, err
	}
	defer closeZ()
	lr := &lineReader{r: br, max: lim.maxLine()}
	var (
		raw       []string
		held      int64 // bytes the labels take
		blankLine int   // first blank line not yet followed by a label
	)
	for {
		line, num, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		line = trimSpace(line)
		if len(line) == 0 {
			if blankLine == 0 {
				blankLine = num
			}
			continue
		}
		if blankLine != 0 {
			return nil, formatErr(blankLine, 0, "empty label (a blank line before the label on line %d)", num)
		}
		held += int64(len(line)) + 24
		if err := lim.budget(held, num, "the labels so far"); err != nil {
			return nil, err
		}
		raw = append(raw, string(line))
	}
	if len(raw) == 0 {
		return nil, emptyErr("no labels")
	}
	l := &Labels{Class: make([]int, len(raw)), Numeric: true}
	ints := make([]int64, len(raw))
	for i, s := range raw {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			l.Numeric = false
			break
		}
		ints[i] = v
	}
	if l.Numeric {
		index := map[int64]int{}
		var distinct []int64
		for _, v := range ints {
			if _, ok := index[v]; !ok {
				index[v] = 0
				distinct = append(distinct, v)
			}
		}
		sort.Slice(distinct, func(a, b int) bool { return distinct[a] < distinct[b] })
		for k, v := range distinct {
			index[v] = k
			l.Names = append(l.Names, strconv.FormatInt(v, 10))
		}
		for i, v := range ints {
			l.Class[i] = index[v]
		}
		return l, nil
	}
	index := map[string]int{}
	for _, s := range raw {
		if _, ok := index[s]; !ok {
			index[s] = 0
			l.Names = append(l.Names, s)
		}
	}
	sort.Strings(l.Names)
	for k, s := range l.Names {
		index[s] = k
	}
	for i, s := range raw {
		l.Class[i] = index[s]
	}
	return l, nil
}
