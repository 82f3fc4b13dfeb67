package engine

import "github.com/manifoldlab/manifold/engine/internal/errs"

// Errors returned (wrapped, with the details) by Fit, Transform and Load.
// Every error caused by the caller's data wraps one of these, so errors.Is
// works; none of them is ever a panic. (They are defined in
// engine/internal/errs, so that engine's internal packages can wrap them.)
var (
	// ErrEmpty: the input has no samples or no features.
	ErrEmpty = errs.Empty
	// ErrNotFinite: the input holds NaN or ±Inf, or values so large that
	// squared distances (or a method's forms of higher degree) would
	// overflow to +Inf.
	ErrNotFinite = errs.NotFinite
	// ErrTooFewSamples: fewer samples than the method needs (k ≥ N, dim ≥ N, …).
	ErrTooFewSamples = errs.TooFewSamples
	// ErrBadSetting: a setting is out of range (negative k, dim < 1, …).
	ErrBadSetting = errs.BadSetting
	// ErrDimension: the output dimension cannot be had from this input
	// (dim > features for a linear method, more dimensions than the
	// spectrum supports, or samples that are all the same point).
	ErrDimension = errs.Dimension
	// ErrShape: a matrix has the wrong shape (Transform input with another
	// number of features than the training data, a distance matrix that
	// is not square). Labels of the wrong length are ErrLabels.
	ErrShape = errs.Shape
	// ErrLabels: labels are missing or unusable for a supervised setting.
	ErrLabels = errs.Labels
	// ErrMemoryBudget: the estimated peak memory exceeds Options.MaxBytes,
	// or no machine could hold it (an estimate above 2⁵⁰ bytes, a dense
	// copy that cannot be addressed, more than 2³¹−1 samples or features).
	ErrMemoryBudget = errs.MemoryBudget
	// ErrModelFile: a model file is not a manifold model, is corrupted, or
	// comes from an incompatible format version.
	ErrModelFile = errs.ModelFile
	// ErrNoTransform: the model cannot map new points this way (for
	// instance an MDS model fitted from distances asked to map raw data).
	ErrNoTransform = errs.NoTransform
	// ErrNumerical: a decomposition or solver failed on this input, or the
	// samples differ so little that their squared differences underflow.
	ErrNumerical = errs.Numerical
)
