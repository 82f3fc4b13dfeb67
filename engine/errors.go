package engine

import "errors"

// Errors returned (wrapped, with the details) by Fit, Transform and Load.
// Every error caused by the caller's data wraps one of these, so errors.Is
// works; none of them is ever a panic.
var (
	// ErrEmpty: the input has no samples or no features.
	ErrEmpty = errors.New("engine: empty input")
	// ErrNotFinite: the input holds NaN or ±Inf, or values so large that
	// squared distances (or a method's forms of higher degree) would
	// overflow to +Inf.
	ErrNotFinite = errors.New("engine: input not finite or out of range")
	// ErrTooFewSamples: fewer samples than the method needs (k ≥ N, dim ≥ N, …).
	ErrTooFewSamples = errors.New("engine: too few samples")
	// ErrBadSetting: a setting is out of range (negative k, dim < 1, …).
	ErrBadSetting = errors.New("engine: invalid setting")
	// ErrDimension: the output dimension cannot be had from this input
	// (dim > features for a linear method, more dimensions than the
	// spectrum supports, or samples that are all the same point).
	ErrDimension = errors.New("engine: output dimension not available")
	// ErrShape: a matrix has the wrong shape (Transform input with another
	// number of features than the training data, a distance matrix that
	// is not square). Labels of the wrong length are ErrLabels.
	ErrShape = errors.New("engine: shape mismatch")
	// ErrLabels: labels are missing or unusable for a supervised setting.
	ErrLabels = errors.New("engine: invalid labels")
	// ErrMemoryBudget: the estimated peak memory exceeds Options.MaxBytes,
	// or no machine could hold it (an estimate above 2⁵⁰ bytes, a dense
	// copy that cannot be addressed, more than 2³¹−1 samples or features).
	ErrMemoryBudget = errors.New("engine: memory budget exceeded")
	// ErrModelFile: a model file is not a manifold model, is corrupted, or
	// comes from an incompatible format version.
	ErrModelFile = errors.New("engine: bad model file")
	// ErrNoTransform: the model cannot map new points this way (for
	// instance an MDS model fitted from distances asked to map raw data).
	ErrNoTransform = errors.New("engine: out-of-sample mapping not available")
	// ErrNumerical: a decomposition or solver failed on this input, or the
	// samples differ so little that their squared differences underflow.
	ErrNumerical = errors.New("engine: numerical failure")
)
