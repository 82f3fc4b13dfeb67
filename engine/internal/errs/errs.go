package errs

import "errors"

// The sentinels, documented in package engine (errors.go).
var (
	Empty         = errors.New("engine: empty input")
	NotFinite     = errors.New("engine: input not finite or out of range")
	TooFewSamples = errors.New("engine: too few samples")
	BadSetting    = errors.New("engine: invalid setting")
	Dimension     = errors.New("engine: output dimension not available")
	Shape         = errors.New("engine: shape mismatch")
	Labels        = errors.New("engine: invalid labels")
	MemoryBudget  = errors.New("engine: memory budget exceeded")
	ModelFile     = errors.New("engine: bad model file")
	NoTransform   = errors.New("engine: out-of-sample mapping not available")
	Numerical     = errors.New("engine: numerical failure")
)
