package sparse

import "context"

// stopper checks a context every stopEvery units of work, so that loops of
// cheap steps (graph sweeps, symbolic analysis, triplet sorting) stop
// within a few milliseconds of a cancel without a ctx.Err() per step.
type stopper struct {
	ctx  context.Context
	work int
	err  error
	// limit, when positive, bounds fill, the entries a symbolic analysis
	// has counted; over says it was passed.
	limit, fill int64
	over        bool
}

// grow adds e entries to the fill and reports whether it passed the limit.
func (s *stopper) grow(e int) bool {
	s.fill += int64(e)
	if s.limit > 0 && s.fill > s.limit {
		s.over = true
	}
	return s.over
}

// stopEvery is the work between checks: about 10⁵ entry visits, well
// under a millisecond.
const stopEvery = 1 << 17

// tick adds w units of work and reports whether the context is done (the
// cause is then in s.err). A nil ctx never stops.
func (s *stopper) tick(w int) bool {
	if s.err != nil {
		return true
	}
	s.work += w
	if s.work < stopEvery || s.ctx == nil {
		return false
	}
	s.work = 0
	s.err = s.ctx.Err()
	return s.err != nil
}
